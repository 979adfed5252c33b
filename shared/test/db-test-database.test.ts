import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, infraModes } from '../testing/index';

const SCHEMAS = ['agent', 'call', 'campaign', 'gateway', 'telephony', 'webhook'];

describe.each(infraModes())('createTestDatabase (%s PostgreSQL)', (mode) => {
  it('clones the migrated template quickly, and drop removes the clone', async () => {
    const startedAt = new Date();
    const started = performance.now();
    const db = await createTestDatabase(mode);
    const elapsedMs = performance.now() - started;
    // The budget is 300 ms. What shows it is a clone (below: its migrations were applied before it
    // was asked for); this bound only catches a hang, leaving a loaded machine its stalls (and
    // createTestDatabase's retries while the template is briefly in use).
    expect(elapsedMs).toBeLessThan(15_000);
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ schema: string }[]>`
        select table_schema as schema from information_schema.tables
         where table_name = 'outbox' order by table_schema`;
      expect(rows.map((r) => r.schema)).toEqual(SCHEMAS);
      const migrated = await sql`select 1 from gateway.schema_migrations where version = '000_bus'`;
      expect(migrated).toHaveLength(1);
      // Copied from the template, not migrated now.
      for (const schema of SCHEMAS) {
        const [latest] = await sql<
          { at: Date }[]
        >`select max(applied_at) as at from ${sql(schema)}.schema_migrations`;
        expect(latest!.at.getTime(), schema).toBeLessThan(startedAt.getTime());
      }
    } finally {
      await sql.end();
    }
    await db.drop();
    const other = await createTestDatabase(mode);
    const admin = postgres(other.url, { max: 1, onnotice: () => {} });
    try {
      expect(await admin`select 1 from pg_database where datname = ${db.name}`).toHaveLength(0);
    } finally {
      await admin.end();
      await other.drop();
    }
  });
});
