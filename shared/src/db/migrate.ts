import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log';
import { assertIdentifier, type Sql } from './connect';
import { applyOutsideTransaction, type MigrationOptions, migrationOptions } from './migrate-outside';
import type { MigrationSet } from './types';

/** One migration, ready to apply: `version` is the file name without `.sql`. */
export interface Migration {
  version: string;
  file: string;
  sql: string;
  checksum: string;
  /** Its directives (migrate-outside.ts): whether it runs outside a transaction, earlier checksums. */
  options: MigrationOptions;
}

const FILE_PATTERN = /^\d{3}_[a-z0-9_]+\.sql$/;
export const BUS_MIGRATION_VERSION = '000_bus';
/** Second built-in step, applied after `000_bus` (and, on older databases, after their own files). */
export const BUS_FILLFACTOR_VERSION = '000_bus_outbox_fillfactor';

/**
 * Tables every schema gets before its own files: the transactional outbox and the consumer
 * inbox (processed event ids). Changing this text changes its checksum, which every existing
 * database would refuse: add a new built-in version instead.
 */
export function busTablesSql(schema: string): string {
  const s = `"${assertIdentifier(schema)}"`;
  return `
CREATE TABLE ${s}.outbox (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  lease_until timestamptz,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX outbox_pending_idx ON ${s}.outbox (seq) WHERE published_at IS NULL;
CREATE INDEX outbox_published_idx ON ${s}.outbox (published_at) WHERE published_at IS NOT NULL;
CREATE TABLE ${s}.processed_events (
  consumer text NOT NULL,
  event_id uuid NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
CREATE INDEX processed_events_age_idx ON ${s}.processed_events (processed_at);
`;
}

/**
 * Half of each outbox page is left free, so the relay's claim (lease and attempt count) is a HOT
 * update on the same page: PostgreSQL then logs only the changed bytes instead of a copy of the
 * whole event row and new index entries, which cuts the WAL written per POSTed call
 * (docs/performance.md). Rows live minutes, so the space costs little.
 */
export function busFillfactorSql(schema: string): string {
  return `ALTER TABLE "${assertIdentifier(schema)}".outbox SET (fillfactor = 50);\n`;
}

/** Where a service's `.sql` files are: next to its source, or under VOICE_MIGRATIONS_DIR in a bundle. */
export function migrationsDirectory(schema: string, defaultUrl: URL): string {
  const bundled = process.env.VOICE_MIGRATIONS_DIR;
  return bundled ? path.join(bundled, schema) : fileURLToPath(defaultUrl);
}

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function migration(file: string, sql: string): Migration {
  return {
    version: file.replace(/\.sql$/, ''),
    file,
    sql,
    checksum: checksum(sql),
    options: migrationOptions(file, sql),
  };
}

/** The built-in bus migrations followed by the set's files in name order. */
export async function loadMigrations(set: MigrationSet, log: Logger): Promise<Migration[]> {
  const names = (await readdir(set.directory)).filter((name) => name.endsWith('.sql')).sort();
  const files: Migration[] = [];
  for (const name of names) {
    if (!FILE_PATTERN.test(name)) {
      log.warn({ schema: set.schema, file: name }, 'ignoring migration file: name must match NNN_name.sql');
      continue;
    }
    files.push(migration(name, await readFile(path.join(set.directory, name), 'utf8')));
  }
  return [
    migration(`${BUS_MIGRATION_VERSION}.sql`, busTablesSql(set.schema)),
    migration(`${BUS_FILLFACTOR_VERSION}.sql`, busFillfactorSql(set.schema)),
    ...files,
  ];
}

/** A digest of every migration of these sets: equal digests mean identical resulting schemas. */
export async function migrationsFingerprint(sets: MigrationSet[], log: Logger): Promise<string> {
  const hash = createHash('sha256');
  for (const set of sets) {
    for (const m of await loadMigrations(set, log)) hash.update(`${set.schema}/${m.version}:${m.checksum}\n`);
  }
  return hash.digest('hex');
}

/**
 * Brings `set.schema` up to date. A session advisory lock keyed on the schema serialises
 * replicas starting together (asked for again until free: see takeLock); each file runs in its own transaction with its bookkeeping row,
 * so a failure leaves every earlier file applied and this one not at all (but for a file that
 * runs outside a transaction: migrate-outside.ts).
 */
export async function migrate(sql: Sql, set: MigrationSet, log: Logger): Promise<{ applied: string[] }> {
  const schema = assertIdentifier(set.schema);
  const migrations = await loadMigrations(set, log);
  const lockKey = `voice.migrate.${schema}`;
  // Advisory locks belong to a session, so lock, work and unlock must share one connection.
  const conn = await sql.reserve();
  try {
    await takeLock(conn, lockKey);
    try {
      return { applied: await applyPending(conn, schema, migrations, log) };
    } finally {
      await conn`select pg_advisory_unlock(hashtext(${lockKey}))`;
    }
  } finally {
    conn.release();
  }
}

/** How often a replica asks again for the migration lock another one holds. */
const LOCK_RETRY_MS = 100;

/**
 * Takes the session lock by asking without waiting, again and again: a session blocked in
 * pg_advisory_lock sits in a transaction with a snapshot, which a CREATE INDEX CONCURRENTLY run by
 * the holder waits for (PostgreSQL then ends one of the two as a deadlock).
 */
async function takeLock(conn: Sql, lockKey: string): Promise<void> {
  for (;;) {
    const [row] = await conn<
      { locked: boolean }[]
    >`select pg_try_advisory_lock(hashtext(${lockKey})) as locked`;
    if (row?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

async function applyPending(
  conn: Sql,
  schema: string,
  migrations: Migration[],
  log: Logger,
): Promise<string[]> {
  await conn.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await conn.unsafe(
    `CREATE TABLE IF NOT EXISTS "${schema}".schema_migrations (
       version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)`,
  );
  const rows = await conn<{ version: string; checksum: string | null }[]>`
    select version, checksum from ${conn(schema)}.schema_migrations`;
  const known = new Map(rows.map((row) => [row.version, row.checksum]));
  const applied: string[] = [];
  for (const m of migrations) {
    if (known.has(m.version)) {
      const recorded = known.get(m.version);
      // Recorded with an earlier text the file names as having the same effect: applied.
      if (recorded !== m.checksum && !(recorded && m.options.appliedAs.includes(recorded))) {
        throw new Error(
          `migration ${schema}/${m.file} was changed after it was applied (checksum mismatch); ` +
            'add a new migration file instead of editing an applied one',
        );
      }
      continue;
    }
    await applyOne(conn, schema, m);
    log.info({ schema, migration: m.version }, 'applied migration');
    applied.push(m.version);
  }
  return applied;
}

/** `sql.begin` is not available on a reserved connection, so the transaction is spelled out. */
async function applyOne(conn: Sql, schema: string, m: Migration): Promise<void> {
  if (m.options.outsideTransaction) {
    try {
      await applyOutsideTransaction(conn, schema, m.sql);
    } catch (error) {
      throw new Error(`migration ${schema}/${m.file} failed: ${(error as Error).message}`, { cause: error });
    }
    await conn`insert into ${conn(schema)}.schema_migrations (version, checksum) values (${m.version}, ${m.checksum})`;
    return;
  }
  await conn.unsafe('BEGIN');
  try {
    await conn.unsafe(m.sql);
    await conn`insert into ${conn(schema)}.schema_migrations (version, checksum) values (${m.version}, ${m.checksum})`;
    await conn.unsafe('COMMIT');
  } catch (error) {
    await conn.unsafe('ROLLBACK').catch(() => undefined);
    throw new Error(`migration ${schema}/${m.file} failed: ${(error as Error).message}`, { cause: error });
  }
}
