import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import type { InfraMode, TestInfra } from '@voice/shared/testing';

/**
 * One run, one set of servers: decides which infrastructure modes the suite covers and starts
 * what the embedded mode needs. Under REQUIRE_INFRA=1, missing or unreachable NATS/Postgres fails
 * the whole run rather than silently skipping the `nats` mode.
 */
async function reachableNats(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 2000, reconnect: false });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

async function reachablePostgres(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
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
  const infra: TestInfra = {
    modes,
    embeddedDatabaseUrl: '',
    externalDatabaseUrl: pgOk ? databaseUrl : undefined,
    natsUrl: natsOk ? natsUrl : undefined,
    templateDatabase: '',
  };
  project.provide('infra', infra);
  return async () => {};
}
