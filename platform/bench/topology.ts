import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { type Child, platformNodeFlags, startChild } from './support';

/** One system under test: where its HTTP edge is, its database, and its processes. */
export interface Platform {
  name: 'embedded' | 'nats';
  url: string;
  /** The database its services use (to seed rows and for the reference servers). */
  databaseUrl: string;
  /** The process that serves HTTP (the one process of the embedded default; the gateway otherwise). */
  serving: Child;
  processes: Child[];
  /** The NATS subject prefix (NATS topology only). */
  busPrefix?: string;
  /** Where the campaign service's metrics are served (its own listener on the NATS topology). */
  campaignMetricsUrl: string;
  /** Each platform process's /metrics (one on the embedded default). */
  metrics: { name: string; url: string }[];
}

export interface BenchEnv {
  natsUrl: string;
  /** Admin URL of the PostgreSQL server the NATS topology uses (a scratch database is made in it). */
  adminDatabaseUrl: string;
  adminToken: string;
  recordingSecret: string;
  simTimeScale: string;
  logDir: string;
  dataDir: string;
  /** The platform's own log level (its default unless BENCH_LOG_LEVEL says otherwise). */
  logLevel: string | undefined;
  /** CALL_DIALS_PER_SECOND (the platform's default unless set). */
  callDialsPerSecond?: string | undefined;
}

function platformEnv(env: BenchEnv): Record<string, string | undefined> {
  return {
    ADMIN_TOKEN: env.adminToken,
    RECORDING_URL_SECRET: env.recordingSecret,
    SIM_TIME_SCALE: env.simTimeScale,
    LOG_LEVEL: env.logLevel,
    CALL_DIALS_PER_SECOND: env.callDialsPerSecond,
    // For A/B runs of the gateway's per-account write limit (the fairness section).
    ACCOUNT_WRITES_IN_FLIGHT: process.env.BENCH_ACCOUNT_WRITES_IN_FLIGHT,
    ACCOUNT_WRITES_SHARED: process.env.BENCH_ACCOUNT_WRITES_SHARED,
    PORT: '0',
    // Every bench client (1,000 fan-out subscribers among them) comes from this one address, as
    // from a proxy in front: the per-address connection cap would refuse most of them.
    MAX_CONNECTIONS_PER_IP: '0',
  };
}

/** The embedded default: one process, in-process bus, embedded PostgreSQL in a scratch DATA_DIR. */
export async function startEmbedded(env: BenchEnv): Promise<Platform> {
  const dataDir = join(env.dataDir, 'embedded');
  const host = await startChild(
    'embedded',
    'platform/bench/embedded-host.ts',
    [],
    { ...platformEnv(env), DATA_DIR: dataDir },
    { ready: /running at (http:\/\/\S+)/, logDir: env.logDir, ipc: true, nodeFlags: platformNodeFlags() },
  );
  const url = /running at (http:\/\/\S+)/.exec(host.output())![1]!;
  // The embedded server's address: its port from postmaster.pid, its password from the cluster folder.
  const pgDir = join(dataDir, 'postgres');
  const port = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[3]!.trim();
  const password = readFileSync(join(pgDir, 'voice-password'), 'utf8').trim();
  const databaseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    name: 'embedded',
    url,
    databaseUrl,
    serving: host,
    processes: [host],
    // The all-in-one process serves every service's metrics on its API port.
    campaignMetricsUrl: `${url}/metrics`,
    metrics: [{ name: 'embedded', url: `${url}/metrics` }],
  };
}

/** A scratch database on the given server; `drop` removes it. */
export async function scratchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `voice_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await sql.end();
    },
  };
}

/** The production topology: each component its own process (platform/src/main.ts <role>) on NATS + Postgres. */
export async function startNatsTopology(env: BenchEnv, databaseUrl: string): Promise<Platform> {
  const busPrefix = `bench${randomBytes(4).toString('hex')}`;
  const common = {
    ...platformEnv(env),
    NATS_URL: env.natsUrl,
    DATABASE_URL: databaseUrl,
    BUS_PREFIX: busPrefix,
    DATA_DIR: join(env.dataDir, 'nats'),
    // Six pools share the server with the reference servers and other users: keep them modest.
    DATABASE_POOL_SIZE: '8',
  };
  const flags = platformNodeFlags();
  const start = (role: string, ready: RegExp) =>
    startChild(
      `nats-${role}`,
      'platform/src/main.ts',
      [role],
      // Each process's metrics on a listener of its own (the campaign-size and fairness sections read them).
      { ...common, METRICS_PORT: '0' },
      { ready, logDir: env.logDir, nodeFlags: flags },
    );
  // Services log "started" at info; at a quieter level their readiness shows as an absence of
  // failure, so wait on the gateway's banner (it needs the database migrated by then anyway).
  const serviceReady = env.logLevel && env.logLevel !== 'info' ? /./ : /"msg":"started"/;
  // telephony routes each call to its carrier when it is placed.
  const services = await Promise.all(
    ['agent', 'call', 'campaign', 'webhook', 'telephony'].map((role) => start(role, serviceReady)),
  );
  const gateway = await start('gateway', /running at (http:\/\/\S+)/);
  const url = /running at (http:\/\/\S+)/.exec(gateway.output())![1]!;
  const metricsOf = (name: string, child: Child) => {
    const metricsUrl = /"metrics_url":"(http:\/\/[^"]+)"/.exec(child.output())?.[1];
    if (!metricsUrl) throw new Error(`the ${name} process logged no metrics address:\n${child.output()}`);
    return { name, url: metricsUrl };
  };
  const metrics = [
    metricsOf('gateway', gateway),
    ...['agent', 'call', 'campaign', 'webhook', 'telephony'].map((role, i) => metricsOf(role, services[i]!)),
  ];
  return {
    name: 'nats',
    url,
    databaseUrl,
    serving: gateway,
    processes: [gateway, ...services],
    busPrefix,
    campaignMetricsUrl: metrics.find((m) => m.name === 'campaign')!.url,
    metrics,
  };
}

export interface References {
  a: { url: string };
  /** (b) on each platform's own database, so the query runs on the same server as the platform's. */
  bEmbedded: { url: string };
  bNats: { url: string };
  /** (c) and (d): one front, the responder behind it on the NATS topology's database. */
  cd: { url: string };
  e: { url: string };
  prefix: string;
  processes: Child[];
}

export async function startReferences(
  env: BenchEnv,
  embedded: { databaseUrl: string; accountId: string },
  nats: { databaseUrl: string; accountId: string },
): Promise<References> {
  const prefix = `benchref${randomBytes(4).toString('hex')}`;
  const opts = (ready: RegExp) => ({ ready, logDir: env.logDir });
  const listening = /listening (http:\/\/\S+)/;
  const urlOf = (child: Child) => listening.exec(child.output())![1]!;
  const [a, bEmbedded, bNats, responder, e] = await Promise.all([
    startChild('ref-a', 'platform/bench/reference/a-json.ts', [], {}, opts(listening)),
    startChild(
      'ref-b-embedded',
      'platform/bench/reference/b-postgres.ts',
      [],
      { DATABASE_URL: embedded.databaseUrl, ACCOUNT_ID: embedded.accountId },
      opts(listening),
    ),
    startChild(
      'ref-b-nats',
      'platform/bench/reference/b-postgres.ts',
      [],
      { DATABASE_URL: nats.databaseUrl, ACCOUNT_ID: nats.accountId },
      opts(listening),
    ),
    startChild(
      'ref-responder',
      'platform/bench/reference/responder.ts',
      [],
      {
        DATABASE_URL: nats.databaseUrl,
        ACCOUNT_ID: nats.accountId,
        NATS_URL: env.natsUrl,
        SUBJECT_PREFIX: prefix,
      },
      opts(/ready/),
    ),
    startChild(
      'ref-e',
      'platform/bench/reference/e-ws-forwarder.ts',
      [],
      { NATS_URL: env.natsUrl, SUBJECT_PREFIX: prefix },
      opts(listening),
    ),
  ]);
  const cd = await startChild(
    'ref-cd',
    'platform/bench/reference/c-nats-front.ts',
    [],
    { NATS_URL: env.natsUrl, SUBJECT_PREFIX: prefix },
    opts(listening),
  );
  return {
    a: { url: urlOf(a) },
    bEmbedded: { url: urlOf(bEmbedded) },
    bNats: { url: urlOf(bNats) },
    cd: { url: urlOf(cd) },
    e: { url: urlOf(e) },
    prefix,
    processes: [a, bEmbedded, bNats, responder, e, cd],
  };
}
