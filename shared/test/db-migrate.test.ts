import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createLogger,
  createSql,
  type MigrationSet,
  migrate,
  migrationsDirectory,
  migrationsFingerprint,
  type Sql,
} from '../src/index';
import { createTestDatabase, infraModes, type TestDatabase } from '../testing/index';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'db-migrate-test' });

/** A fresh schema and folder per test: the database is shared by the file, schemas are not. */
async function migrationSet(files: Record<string, string>): Promise<MigrationSet> {
  const schema = `m_${randomBytes(4).toString('hex')}`;
  const directory = await mkdtemp(path.join(tmpdir(), 'voice-migrations-'));
  for (const [name, sql] of Object.entries(files)) {
    await writeFile(path.join(directory, name), sql.replaceAll('{s}', schema));
  }
  return { schema, directory };
}

const ORDERED_FILES = {
  // 002 only works after 001; 010 only after 002: name order, not creation order, must win.
  '010_index.sql': 'CREATE INDEX items_name_idx ON {s}.items (name);',
  '002_add_name.sql': 'ALTER TABLE {s}.items ADD COLUMN name text;',
  '001_items.sql': 'SELECT pg_sleep(0.2); CREATE TABLE {s}.items (id integer PRIMARY KEY);',
  'README.md': 'not a migration',
  '3_bad_name.sql': 'SELECT 1/0;',
};

describe.each(infraModes())('migrate (%s PostgreSQL)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  const folders: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 4, log, applicationName: 'db-migrate-test' });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function freshSet(files: Record<string, string>): Promise<MigrationSet> {
    const set = await migrationSet(files);
    folders.push(set.directory);
    return set;
  }

  async function recorded(schema: string): Promise<string[]> {
    const rows = await sql<{ version: string }[]>`
      select version from ${sql(schema)}.schema_migrations order by version`;
    return rows.map((row) => row.version);
  }

  it('applies the bus tables, then the files in name order, ignoring badly named files', async () => {
    const set = await freshSet(ORDERED_FILES);
    const result = await migrate(sql, set, log);
    expect(result.applied).toEqual([
      '000_bus',
      '000_bus_outbox_fillfactor',
      '001_items',
      '002_add_name',
      '010_index',
    ]);
    expect(await recorded(set.schema)).toEqual([
      '000_bus',
      '000_bus_outbox_fillfactor',
      '001_items',
      '002_add_name',
      '010_index',
    ]);
    const tables = await sql<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = ${set.schema} order by table_name`;
    expect(tables.map((t) => t.table_name)).toEqual([
      'items',
      'outbox',
      'processed_events',
      'schema_migrations',
    ]);
    const [checksum] = await sql<{ checksum: string }[]>`
      select checksum from ${sql(set.schema)}.schema_migrations where version = '001_items'`;
    expect(checksum?.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is idempotent: a second run applies nothing', async () => {
    const set = await freshSet(ORDERED_FILES);
    await migrate(sql, set, log);
    expect((await migrate(sql, set, log)).applied).toEqual([]);
    expect(await recorded(set.schema)).toHaveLength(5);
  });

  it('applies each file once when two replicas migrate a fresh schema at the same time', async () => {
    const set = await freshSet(ORDERED_FILES);
    const other = createSql(db.url, { max: 2, log, applicationName: 'db-migrate-test-2' });
    try {
      const [a, b] = await Promise.all([migrate(sql, set, log), migrate(other, set, log)]);
      expect([...a.applied, ...b.applied].sort()).toEqual([
        '000_bus',
        '000_bus_outbox_fillfactor',
        '001_items',
        '002_add_name',
        '010_index',
      ]);
      expect(await recorded(set.schema)).toHaveLength(5);
    } finally {
      await other.end({ timeout: 5 });
    }
  });

  it('refuses a file changed after it was applied, naming it', async () => {
    const set = await freshSet(ORDERED_FILES);
    await migrate(sql, set, log);
    await writeFile(
      path.join(set.directory, '002_add_name.sql'),
      `ALTER TABLE ${set.schema}.items ADD COLUMN n2 text;`,
    );
    await expect(migrate(sql, set, log)).rejects.toThrow(/002_add_name\.sql.*checksum/);
    const columns = await sql`
      select 1 from information_schema.columns where table_schema = ${set.schema} and column_name = 'n2'`;
    expect(columns).toHaveLength(0);
  });

  it('rolls back a failing file entirely and keeps the ones before it', async () => {
    const set = await freshSet({
      '001_items.sql': 'CREATE TABLE {s}.items (id integer PRIMARY KEY);',
      '002_broken.sql': 'CREATE TABLE {s}.half (id integer); SELECT 1/0;',
    });
    await expect(migrate(sql, set, log)).rejects.toThrow(/002_broken\.sql.*division by zero/);
    expect(await recorded(set.schema)).toEqual(['000_bus', '000_bus_outbox_fillfactor', '001_items']);
    const half =
      await sql`select 1 from information_schema.tables where table_schema = ${set.schema} and table_name = 'half'`;
    expect(half).toHaveLength(0);
    // The advisory lock was released despite the failure: another run can proceed.
    await writeFile(
      path.join(set.directory, '002_broken.sql'),
      `CREATE TABLE ${set.schema}.half (id integer);`,
    );
    expect((await migrate(sql, set, log)).applied).toEqual(['002_broken']);
  });

  it('adds a later built-in step to a schema migrated before it, after its own files', async () => {
    const set = await freshSet({ '001_init.sql': '-- nothing yet\n' });
    await migrate(sql, set, log);
    // As a database migrated before the fillfactor step existed: its row gone, the option reset.
    await sql`delete from ${sql(set.schema)}.schema_migrations where version = '000_bus_outbox_fillfactor'`;
    await sql.unsafe(`ALTER TABLE "${set.schema}".outbox RESET (fillfactor)`);
    expect((await migrate(sql, set, log)).applied).toEqual(['000_bus_outbox_fillfactor']);
    const [outbox] = await sql<{ reloptions: string[] | null }[]>`
      select c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${set.schema} and c.relname = 'outbox'`;
    expect(outbox?.reloptions).toEqual(['fillfactor=50']);
  });

  async function indexes(schema: string): Promise<{ name: string; valid: boolean; definition: string }[]> {
    return sql<{ name: string; valid: boolean; definition: string }[]>`
      select c.relname as name, i.indisvalid as valid, pg_get_indexdef(i.indexrelid) as definition
      from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
      join pg_class t on t.oid = i.indrelid
      where n.nspname = ${schema} and t.relname = 'items' order by c.relname`;
  }

  const CONCURRENT_FILES = {
    '001_items.sql':
      'CREATE TABLE {s}.items (id integer PRIMARY KEY, name text); CREATE INDEX items_name_idx ON {s}.items (id);',
    // As call migration 011 is written: an index rebuilt under its own name, and a new one.
    '002_indexes.sql': `-- migrate: outside-transaction
-- A comment; with a semicolon;
CREATE INDEX CONCURRENTLY IF NOT EXISTS items_name_idx_002 ON {s}.items (name, id DESC);
DROP INDEX CONCURRENTLY IF EXISTS {s}.items_name_idx;
ALTER INDEX IF EXISTS {s}.items_name_idx_002 RENAME TO items_name_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS items_id_name_idx
  ON {s}.items (id, name);
`,
  };

  it('lets two replicas start together on a file that builds indexes concurrently', async () => {
    // A replica waiting for the migration lock must hold no snapshot: CREATE INDEX CONCURRENTLY
    // waits for every older one, and the lock holder would wait for its own waiter.
    const set = await freshSet(CONCURRENT_FILES);
    const other = createSql(db.url, { max: 2, log, applicationName: 'db-migrate-test-2' });
    try {
      const [a, b] = await Promise.all([migrate(sql, set, log), migrate(other, set, log)]);
      expect([...a.applied, ...b.applied].filter((v) => !v.startsWith('000_')).sort()).toEqual([
        '001_items',
        '002_indexes',
      ]);
      expect((await indexes(set.schema)).every((index) => index.valid)).toBe(true);
    } finally {
      await other.end({ timeout: 5 });
    }
  });

  it('runs a file outside a transaction, so CREATE INDEX CONCURRENTLY works', async () => {
    const set = await freshSet(CONCURRENT_FILES);
    expect((await migrate(sql, set, log)).applied).toContain('002_indexes');
    expect((await indexes(set.schema)).map(({ name, valid }) => [name, valid])).toEqual([
      ['items_id_name_idx', true],
      ['items_name_idx', true],
      ['items_pkey', true],
    ]);
    expect((await indexes(set.schema)).find((i) => i.name === 'items_name_idx')?.definition).toMatch(
      /\(name, id DESC\)/,
    );
    expect((await migrate(sql, set, log)).applied).toEqual([]);
  });

  it('runs such a file again after a crash part-way, rebuilding an index left invalid', async () => {
    const set = await freshSet(CONCURRENT_FILES);
    await migrate(sql, set, log);
    // As a crash left it: the file unrecorded, the rename done, the new index's build failed.
    await sql`delete from ${sql(set.schema)}.schema_migrations where version = '002_indexes'`;
    await sql`update pg_index set indisvalid = false
      where indexrelid = ${`${set.schema}.items_id_name_idx`}::regclass`;
    expect((await indexes(set.schema)).find((i) => i.name === 'items_id_name_idx')?.valid).toBe(false);
    expect((await migrate(sql, set, log)).applied).toEqual(['002_indexes']);
    expect((await indexes(set.schema)).map(({ name, valid }) => [name, valid])).toEqual([
      ['items_id_name_idx', true],
      ['items_name_idx', true],
      ['items_pkey', true],
    ]);
  });

  it('does not run again a file applied with the earlier text it names, and refuses another', async () => {
    const first = 'CREATE INDEX items_name_idx ON {s}.items (name);';
    const set = await freshSet({
      '001_items.sql': 'CREATE TABLE {s}.items (id integer, name text);',
      '002_index.sql': first,
    });
    await migrate(sql, set, log);
    const earlier = createHash('sha256').update(first.replaceAll('{s}', set.schema)).digest('hex');
    // Would fail if it ran: the index exists and the statement has no IF NOT EXISTS.
    const rewritten = `-- migrate: outside-transaction\n-- migrate: applied-as ${earlier}\nCREATE INDEX CONCURRENTLY IF NOT EXISTS items_other_idx ON ${set.schema}.items (id);\n`;
    await writeFile(path.join(set.directory, '002_index.sql'), rewritten);
    expect((await migrate(sql, set, log)).applied).toEqual([]);
    expect((await indexes(set.schema)).map((i) => i.name)).toEqual(['items_name_idx']);
    await writeFile(path.join(set.directory, '002_index.sql'), rewritten.replace(earlier, 'f'.repeat(64)));
    await expect(migrate(sql, set, log)).rejects.toThrow(/002_index\.sql.*checksum/);
  });

  it('refuses an unknown directive and a concurrent index build that could not run twice', async () => {
    const typo = await freshSet({ '001_a.sql': '-- migrate: outside-transactions\nSELECT 1;\n' });
    await expect(migrate(sql, typo, log)).rejects.toThrow(/001_a\.sql: unknown directive/);
    const once = await freshSet({
      '001_a.sql': `-- migrate: outside-transaction\nCREATE TABLE IF NOT EXISTS {s}.t (id int);\nCREATE INDEX CONCURRENTLY t_idx ON {s}.t (id);\n`,
    });
    await expect(migrate(sql, once, log)).rejects.toThrow(/t_idx needs IF NOT EXISTS/);
  });

  it('accepts a file holding only a comment', async () => {
    const set = await freshSet({ '001_init.sql': '-- nothing yet\n' });
    expect((await migrate(sql, set, log)).applied).toEqual([
      '000_bus',
      '000_bus_outbox_fillfactor',
      '001_init',
    ]);
  });
});

describe('migrationsFingerprint', () => {
  it('is stable for unchanged files and changes with any file', async () => {
    const set = await migrationSet({ '001_a.sql': 'SELECT 1;' });
    try {
      const first = await migrationsFingerprint([set], log);
      expect(await migrationsFingerprint([set], log)).toBe(first);
      await writeFile(path.join(set.directory, '001_a.sql'), 'SELECT 2;');
      expect(await migrationsFingerprint([set], log)).not.toBe(first);
    } finally {
      await rm(set.directory, { recursive: true, force: true });
    }
  });
});

describe('migrationsDirectory', () => {
  const saved = process.env.VOICE_MIGRATIONS_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.VOICE_MIGRATIONS_DIR;
    else process.env.VOICE_MIGRATIONS_DIR = saved;
  });

  it('uses the folder next to the source by default and VOICE_MIGRATIONS_DIR/<schema> in a bundle', () => {
    delete process.env.VOICE_MIGRATIONS_DIR;
    expect(migrationsDirectory('agent', new URL('file:///srv/app/services/agent/migrations'))).toBe(
      '/srv/app/services/agent/migrations',
    );
    process.env.VOICE_MIGRATIONS_DIR = '/opt/voice/migrations';
    expect(migrationsDirectory('agent', new URL('file:///ignored'))).toBe('/opt/voice/migrations/agent');
  });
});
