import { randomBytes, randomUUID } from 'node:crypto';
import { createLogger, createSql, migrate, SCOPES, type Sql, TRUNK_SCOPES } from '@voice/shared';
import { createTestDatabase, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../src/db/migrations';

const log = createLogger({ level: 'silent', name: 'trunk-scopes-test' });
/** Every scope a key could hold before the trunk scopes came. */
const BEFORE_TRUNKS: string[] = SCOPES.filter(
  (scope) => !(TRUNK_SCOPES as readonly string[]).includes(scope),
);

/**
 * The SIP trunk scopes came after keys existed: a key that held every scope keeps full access,
 * a key limited to some keeps its limits. Run as an upgrade: keys written as the earlier version
 * wrote them, then the migration applied.
 */
describe('the trunk scopes migration', () => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase('embedded');
    sql = createSql(db.url, { max: 2, log, applicationName: 'trunk-scopes-test' });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  async function keyWith(accountId: string, scopes: string[]): Promise<string> {
    const id = randomUUID();
    await sql`
      INSERT INTO gateway.api_keys (id, account_id, name, prefix, key_hash, scopes)
      VALUES (${id}, ${accountId}, 'old', 'vk_old', ${randomBytes(32)}, ${scopes})`;
    return id;
  }

  it('gives full-access keys the trunk scopes and leaves limited keys as they were', async () => {
    const accountId = randomUUID();
    await sql`INSERT INTO gateway.accounts (id, name, plan) VALUES (${accountId}, 'Old', 'pro')`;
    const full = await keyWith(accountId, BEFORE_TRUNKS);
    const limited = await keyWith(accountId, ['calls:read', 'calls:write']);
    const alreadyRead = await keyWith(accountId, [...BEFORE_TRUNKS, 'trunks:read']);
    // Applied again, as on a database that predates it.
    await sql`DELETE FROM gateway.schema_migrations WHERE version = '004_trunk_scopes'`;
    expect((await migrate(sql, migrations, log)).applied).toEqual(['004_trunk_scopes']);

    const rows = await sql<{ id: string; scopes: string[] }[]>`
      SELECT id, scopes FROM gateway.api_keys WHERE account_id = ${accountId}`;
    const scopes = new Map(rows.map((row) => [row.id, row.scopes]));
    expect(scopes.get(full)).toEqual([...BEFORE_TRUNKS, 'trunks:read', 'trunks:write']);
    expect(scopes.get(limited)).toEqual(['calls:read', 'calls:write']);
    // A key that somebody chose trunk scopes for keeps that choice.
    expect(scopes.get(alreadyRead)).toEqual([...BEFORE_TRUNKS, 'trunks:read']);
  });
});
