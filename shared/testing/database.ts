import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import postgres from 'postgres';
import { type InfraMode, testInfra } from './infra';

export interface TestDatabase {
  /** Connection string of the new database (same server and credentials as the admin URL). */
  url: string;
  name: string;
  /** Drops it, disconnecting anyone still connected. */
  drop(): Promise<void>;
}

/** Test databases are named `t_<base36 creation ms>_<random>`: the global setup drops old ones by name. */
export const TEST_DATABASE_PATTERN = /^t_([0-9a-z]+)_[0-9a-f]+$/;

const adminPools = new Map<string, postgres.Sql>();

/** One small admin pool per server per worker; idle connections close quickly so nothing lingers. */
function adminPool(url: string): postgres.Sql {
  let pool = adminPools.get(url);
  if (!pool) {
    pool = postgres(url, { max: 2, idle_timeout: 2, connect_timeout: 10, onnotice: () => {} });
    adminPools.set(url, pool);
  }
  return pool;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function serverUrl(mode: InfraMode): string {
  const infra = testInfra();
  const url = mode === 'embedded' ? infra.embeddedDatabaseUrl : infra.externalDatabaseUrl;
  if (!url) throw new Error(`no PostgreSQL server for infra mode ${mode} in this run`);
  if (!infra.templateDatabase) throw new Error('the global setup built no template database');
  return url;
}

/**
 * A fresh, fully migrated database for one test file (or test), cloned from the run's template:
 * a file-level copy, so it costs milliseconds, not a migration run.
 */
export async function createTestDatabase(mode: InfraMode): Promise<TestDatabase> {
  const url = serverUrl(mode);
  const template = testInfra().templateDatabase;
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = adminPool(url);
  await cloneTemplate(admin, name, template);
  return {
    url: withDatabase(url, name),
    name,
    drop: async () => {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
    },
  };
}

/**
 * CREATE DATABASE ... TEMPLATE refuses while anyone is connected to the template. The template
 * forbids connections, but a backend that just disconnected can still be exiting: retry briefly.
 */
async function cloneTemplate(admin: postgres.Sql, name: string, template: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(`create database "${name}" template "${template}"`);
      return;
    } catch (error) {
      const inUse = error instanceof postgres.PostgresError && error.code === '55006';
      if (!inUse || attempt >= 20) throw error;
      await delay(50 * attempt);
    }
  }
}
