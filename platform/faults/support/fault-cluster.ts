import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { createAccount, type TestAccount } from '../../test/support/accounts';
import { Cluster } from '../../test/support/cluster';
import { freePortRange } from '../../test/support/ports';
import { type NatsServer, startNatsServer } from './nats-server';

/** The production topology of a fault test, with everything it runs on. */
export interface FaultCluster {
  cluster: Cluster;
  /** This test's own nats-server (so it can restart it). */
  nats: NatsServer;
  /** gateway-1 and gateway-2. */
  gateways: string[];
  /** The operator's token for /admin, on every gateway. */
  adminToken: string;
  /** A fresh database of its own: its URL, and a small pool for the test to look into it. */
  databaseUrl: string;
  sql: postgres.Sql;
  /** A fresh enterprise account (a limit no test reaches) with one full-access key. */
  account(name: string): Promise<TestAccount & { keyId: string }>;
  /** Stops every process (SIGTERM), NATS and the database; resolves with the launcher's exit code. */
  stop(): Promise<number | null | undefined>;
}

/**
 * `pnpm start:cluster` for a fault test: two gateways and `REPLICAS` (default 2) of each service as
 * separate processes, on a nats-server of the test's own and a fresh database on the PostgreSQL at
 * DATABASE_URL (default: the local server). `env` adds to or overrides the processes' settings.
 * FAULTS_KEEP=1 keeps the cluster's log (every process's output) and the JetStream store.
 */
export async function startFaultCluster(env: Record<string, string> = {}): Promise<FaultCluster> {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const workDir = await mkdtemp(join(tmpdir(), 'voice-faults-'));
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  let sql: postgres.Sql | undefined;
  let nats: NatsServer | undefined;
  let cluster: Cluster | undefined;

  const stop = async (): Promise<number | null | undefined> => {
    const code = await cluster?.stop();
    await nats?.stop();
    await sql?.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await admin.end({ timeout: 5 });
    if (process.env.FAULTS_KEEP !== '1') await rm(workDir, { recursive: true, force: true });
    else console.log(`kept ${workDir} (cluster.log: every process's output)`);
    return code;
  };

  try {
    await admin.unsafe(`create database "${dbName}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    const databaseUrl = url.toString();
    sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    nats = await startNatsServer(join(workDir, 'jetstream'));
    const port = await freePortRange(2);
    cluster = await Cluster.start(
      {
        NATS_URL: nats.url,
        DATABASE_URL: databaseUrl,
        ADMIN_TOKEN: adminToken,
        RECORDING_URL_SECRET: `recording-${randomBytes(24).toString('hex')}`,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        PORT: String(port),
        GATEWAY_REPLICAS: '2',
        REPLICAS: '2',
        DATA_DIR: join(workDir, 'data'),
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        DATABASE_POOL_SIZE: '4',
        ...env,
      },
      join(workDir, 'cluster.log'),
    );
    const started = cluster;
    const gateways = [1, 2].map((n) => started.process(`gateway-${n}`).url!);
    return {
      cluster,
      nats,
      gateways,
      adminToken,
      databaseUrl,
      sql,
      account: (name) =>
        createAccount(
          { url: gateways[0]!, adminToken },
          { name, plan: 'enterprise', rateLimitPerMinute: 1_000_000 },
        ),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
