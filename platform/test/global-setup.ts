import { mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { createLogger, type Logger, type MigrationSet, migrate, migrationsFingerprint } from '@voice/shared';
import { type InfraMode, processExists, type TestInfra } from '@voice/shared/testing';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
// Each package's `migrations` (also exported from its index) is taken from its own small module:
// importing the package roots would load every service into the global setup, and one service's
// unfinished code would then break every test run.
import { migrations as gatewayMigrations } from '../../gateway/src/db/migrations';
import { migrations as agentMigrations } from '../../services/agent/src/db/migrations';
import { migrations as callMigrations } from '../../services/call/src/db/migrations';
import { migrations as campaignMigrations } from '../../services/campaign/src/db/migrations';
import { migrations as telephonyMigrations } from '../../services/telephony/src/db/migrations';
import { migrations as webhookMigrations } from '../../services/webhook/src/db/migrations';
import {
  DataDirInUseError,
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../src/embedded-postgres';

/**
 * One run, one set of servers: decides which infrastructure modes the suite covers, starts one
 * embedded PostgreSQL for the whole run and builds a migrated template database on every server
 * in play; tests clone it (`createTestDatabase`). Under REQUIRE_INFRA=1, missing or unreachable
 * NATS/Postgres fails the whole run rather than silently skipping the `nats` mode.
 */
const MIGRATION_SETS: MigrationSet[] = [
  gatewayMigrations,
  agentMigrations,
  callMigrations,
  campaignMigrations,
  webhookMigrations,
  telephonyMigrations,
];
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Concurrent runs in one checkout each take a slot: its own reusable data folder. */
const PG_SLOTS = 4;
const DAY_MS = 86_400_000;
const TEMPLATE_PREFIX = 'voice_template_';

// The probes below answer in milliseconds; their bounds are for a loaded machine, where a probe that
// timed out would drop the nats mode (or, under REQUIRE_INFRA=1, fail the run) for no reason.
async function reachableNats(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 10_000, reconnect: false });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

async function reachablePostgres(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'warn', name: 'test-setup' });
  const natsUrl = process.env.NATS_URL || undefined;
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const required = process.env.REQUIRE_INFRA === '1';
  const modes: InfraMode[] = ['embedded'];
  const natsOk = natsUrl ? await reachableNats(natsUrl) : false;
  const pgOk = databaseUrl ? await reachablePostgres(databaseUrl) : false;
  if (natsOk && pgOk) modes.push('nats');
  else if (required) {
    throw new Error(
      `REQUIRE_INFRA=1 but infrastructure is missing: NATS_URL=${natsUrl ?? '(unset)'} reachable=${natsOk}, ` +
        `DATABASE_URL ${databaseUrl ? 'set' : '(unset)'} reachable=${pgOk}`,
    );
  }
  const pg = await startTestPostgres(log);
  try {
    const fingerprint = await migrationsFingerprint(MIGRATION_SETS, log);
    const template = `${TEMPLATE_PREFIX}${fingerprint.slice(0, 16)}`;
    // The embedded server belongs to this run's slot alone: leftovers of any age are garbage.
    await prepareTemplate(pg.server.url, template, 0, log);
    if (modes.includes('nats') && databaseUrl) await prepareTemplate(databaseUrl, template, DAY_MS, log);
    const infra: TestInfra = {
      modes,
      embeddedDatabaseUrl: pg.server.url,
      externalDatabaseUrl: pgOk ? databaseUrl : undefined,
      natsUrl: natsOk ? natsUrl : undefined,
      templateDatabase: template,
    };
    project.provide('infra', infra);
  } catch (error) {
    await pg.stop();
    throw error;
  }
  return pg.stop;
}

/** Starts the run's embedded server in the first free slot (initdb only the first time a slot is used). */
async function startTestPostgres(
  log: Logger,
): Promise<{ server: EmbeddedPostgresServer; stop(): Promise<void> }> {
  const base = path.join(REPO_ROOT, '.test-data');
  await mkdir(base, { recursive: true });
  for (let slot = 0; slot < PG_SLOTS; slot++) {
    const dataDir = path.join(base, slot === 0 ? 'pg' : `pg-${slot}`);
    const release = await lockSlot(`${dataDir}.lock`);
    if (!release) continue;
    try {
      const server = await startEmbeddedPostgres({ dataDir, log, durable: false });
      log.info({ slot, ...server.timings, initialised: server.initialised }, 'test PostgreSQL up');
      return {
        server,
        stop: async () => {
          await server.stop();
          await release();
        },
      };
    } catch (error) {
      await release();
      if (!(error instanceof DataDirInUseError)) throw error;
    }
  }
  throw new Error(`all ${PG_SLOTS} test PostgreSQL slots under ${base} are in use by other runs`);
}

/** An exclusive lock file holding our pid; one left by a dead process is taken over. */
async function lockSlot(file: string): Promise<(() => Promise<void>) | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
      if (owner > 0 && owner !== process.pid && processExists(owner)) return undefined;
      // No pid yet: its creator may be between creating and writing it, unless it is old.
      if (!(owner > 0) && (await ageMs(file)) < 10_000) return undefined;
      await rm(file, { force: true });
    }
  }
  return undefined;
}

async function ageMs(file: string): Promise<number> {
  const info = await stat(file).catch(() => undefined);
  return info ? Date.now() - info.mtimeMs : Number.POSITIVE_INFINITY;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Drops stale templates and test databases, then makes sure `template` exists on this server. */
async function prepareTemplate(serverUrl: string, template: string, staleAfterMs: number, log: Logger) {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await dropStale(admin, template, staleAfterMs, log);
    const exists = await admin`select 1 from pg_database where datname = ${template}`;
    if (exists.length > 0) {
      // The comment holds the last use, so a template in use by some run is never "stale".
      await admin.unsafe(`comment on database "${template}" is '${Date.now()}'`);
      return;
    }
    const started = performance.now();
    await buildTemplate(admin, serverUrl, template, log);
    log.info({ template, ms: Math.round(performance.now() - started) }, 'built template database');
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * Migrates a scratch database, then renames it into place: a crashed build never leaves a
 * half-migrated template under the real name, and of two runs building at once, one wins.
 */
async function buildTemplate(admin: postgres.Sql, serverUrl: string, template: string, log: Logger) {
  const scratch = `${template}_b${Date.now().toString(36)}`;
  await admin.unsafe(`create database "${scratch}" template template0`);
  await admin.unsafe(`comment on database "${scratch}" is '${Date.now()}'`);
  try {
    const db = postgres(withDatabase(serverUrl, scratch), { max: 1, onnotice: () => {} });
    try {
      for (const set of MIGRATION_SETS) await migrate(db, set, log);
    } finally {
      // Clones refuse a template with sessions attached: close before renaming.
      await db.end({ timeout: 5 });
    }
    await admin.unsafe(`alter database "${scratch}" rename to "${template}"`);
  } catch (error) {
    await dropDatabase(admin, scratch);
    const won = error instanceof postgres.PostgresError && error.code === '42P04';
    if (won) return; // another run renamed its identical template first
    throw error;
  }
  await admin.unsafe(`alter database "${template}" with is_template true allow_connections false`);
}

/**
 * Other templates and `t_*` databases older than `staleAfterMs`. Test database names carry their
 * creation time; templates carry their last use in their comment.
 */
async function dropStale(admin: postgres.Sql, keep: string, staleAfterMs: number, log: Logger) {
  const rows = await admin<{ datname: string; created: string | null }[]>`
    select datname, shobj_description(oid, 'pg_database') as created from pg_database
     where datname like ${`${TEMPLATE_PREFIX}%`} or datname ~ '^t_[0-9a-z]+_[0-9a-f]+$'`;
  const cutoff = Date.now() - staleAfterMs;
  for (const { datname, created } of rows) {
    if (datname === keep) continue;
    const stamp = datname.startsWith('t_')
      ? Number.parseInt(datname.split('_')[1] ?? '', 36)
      : Number(created);
    if (Number.isFinite(stamp) && stamp > cutoff) continue;
    log.info({ database: datname }, 'dropping stale test database');
    await dropDatabase(admin, datname);
  }
}

async function dropDatabase(admin: postgres.Sql, name: string): Promise<void> {
  await admin.unsafe(`alter database "${name}" with is_template false`).catch(() => undefined);
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
}
