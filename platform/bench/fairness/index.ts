/**
 * `pnpm bench fairness`: one account (A) bursts thousands of calls while ten others (B..K) each
 * place one call a second; their POST-to-dialed time is compared with the same while A is idle,
 * and A's dial rate with the configured one (CALL_DIALS_PER_SECOND). Runs its own platform (the
 * simulated carrier, calls of a fraction of a second) so that no other section's data is in it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { api, percentile, sleep } from '../support';
import { type BenchEnv, type Platform, scratchDatabase, startEmbedded, startNatsTopology } from '../topology';
import { type PhaseLoad, phaseLoad } from './load';

export interface FairnessSettings {
  /** Calls A places at once. */
  burst: number;
  /** Concurrent connections A posts them over. */
  burstConnections: number;
  /** Accounts placing one call a second each. */
  steadyAccounts: number;
  /** How long the steady accounts place calls with A idle. */
  idleSeconds: number;
  /** CALL_DIALS_PER_SECOND of the platform's call service (one instance). */
  dialsPerSecond: number;
  simTimeScale: number;
}

/** The steady accounts' calls, in ms: POST-to-dialed, and its two parts. */
export interface LatencySummary {
  calls: number;
  p50: number;
  p99: number;
  max: number;
  /** The POST's round trip, as the client saw it. */
  postP50: number;
  postP99: number;
  /** From the call's acceptance (`created_at`) to its dial: the dial queue's part. */
  queueP50: number;
  queueP99: number;
}

/** One steady call's times, ms. */
interface Timing {
  total: number;
  post: number;
  queue: number;
}

export interface FairnessRun {
  platform: Platform['name'];
  idle: LatencySummary;
  /** While A had calls not dialed yet (its POSTs and its backlog). */
  burst: LatencySummary;
  /** Of those, the ones placed while A's POSTs were still being answered. */
  duringPosts: LatencySummary;
  /** And the ones placed after, while A's backlog drained. */
  duringBacklog: LatencySummary;
  a: {
    calls: number;
    postSeconds: number;
    /** From A's first dial to its last. */
    dialSeconds: number;
    dialsPerSecond: number;
    /** Every account's dials per second over the same span (the instance's rate). */
    allDialsPerSecond: number;
    /** Calls of A not `completed` in the end (should be none). */
    notCompleted: number;
  };
  /** The machine's and the platform processes' CPU and event-loop delay in each phase. */
  load: { idle: PhaseLoad; burst: PhaseLoad };
}

export interface FairnessSection {
  settings: FairnessSettings;
  runs: FairnessRun[];
}

type Log = (line: string) => void;

interface Tenant {
  accountId: string;
  key: string;
  agentId: string;
}

interface Placed {
  id: string;
  /** Wall clock (ms, fractional) when the POST was sent, and when its answer came. */
  sentAt: number;
  answeredAt: number;
}

const now = () => performance.timeOrigin + performance.now();

async function tenant(url: string, adminToken: string, name: string, body: Record<string, unknown>) {
  const account = await api<{ data: { id: string } }>(url, 'POST', '/admin/accounts', {
    key: adminToken,
    body: { name, ...body },
  });
  const key = await api<{ data: { key: string } }>(
    url,
    'POST',
    `/admin/accounts/${account.data.id}/api-keys`,
    {
      key: adminToken,
      body: { name: 'bench' },
    },
  );
  const agent = await api<{ data: { id: string } }>(url, 'POST', '/v1/agents', {
    key: key.data.key,
    body: { name: 'Riley', start_flow: 'Hi, this is Riley from Acme.', end_flow: 'Thanks, goodbye.' },
  });
  return { accountId: account.data.id, key: key.data.key, agentId: agent.data.id };
}

/** A number that completes: none ends like the simulated carrier's test numbers (0001-0005). */
const phone = (n: number) => `+1415${String(n % 100_000).padStart(5, '0')}77`;

async function place(url: string, who: Tenant, n: number): Promise<Placed> {
  const sentAt = now();
  const placed = await api<{ data: { id: string } }>(url, 'POST', '/v1/call', {
    key: who.key,
    body: { agent_id: who.agentId, source_number: '+14155550100', phone_number: phone(n) },
  });
  return { id: placed.data.id, sentAt, answeredAt: now() };
}

/** Each steady account places one call a second (staggered) until `until` says stop. */
async function steady(url: string, tenants: Tenant[], until: () => boolean): Promise<Placed[]> {
  const placed: Placed[] = [];
  let n = 0;
  await Promise.all(
    tenants.map(async (who, i) => {
      await sleep((1000 / tenants.length) * i);
      let next = now();
      while (!until()) {
        placed.push(await place(url, who, 500_000 + n++));
        next += 1000;
        await sleep(Math.max(0, next - now()));
      }
    }),
  );
  return placed;
}

function summary(timings: Timing[]): LatencySummary {
  const sorted = (pick: (t: Timing) => number) => timings.map(pick).sort((a, b) => a - b);
  const total = sorted((t) => t.total);
  const post = sorted((t) => t.post);
  const queue = sorted((t) => t.queue);
  return {
    calls: total.length,
    p50: percentile(total, 50),
    p99: percentile(total, 99),
    max: total.at(-1) ?? Number.NaN,
    postP50: percentile(post, 50),
    postP99: percentile(post, 99),
    queueP50: percentile(queue, 50),
    queueP99: percentile(queue, 99),
  };
}

async function untilNothingLive(sql: postgres.Sql, accountIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM call.calls WHERE account_id = ANY(${accountIds}::uuid[])
        AND status IN ('initializing', 'ringing', 'in_progress')`;
    if (row!.n === 0 || Date.now() > deadline) return;
    await sleep(500);
  }
}

async function oneRun(
  platform: Platform,
  env: BenchEnv,
  settings: FairnessSettings,
  log: Log,
): Promise<FairnessRun> {
  const url = platform.url;
  const a = await tenant(url, env.adminToken, 'Fairness A', {
    plan: 'enterprise',
    rate_limit_per_minute: 1_000_000,
    // High enough never to be what holds A back: the dial rate is.
    max_concurrent_calls: 10_000,
  });
  const others: Tenant[] = [];
  for (let i = 0; i < settings.steadyAccounts; i++) {
    others.push(
      await tenant(url, env.adminToken, `Fairness ${String.fromCharCode(66 + i)}`, { plan: 'pro' }),
    );
  }
  const sql = postgres(platform.databaseUrl, { max: 2, onnotice: () => {} });
  try {
    const latencies = async (placed: Placed[]): Promise<Timing[]> => {
      const rows = await sql<{ id: string; created_at: Date; dialed_at: Date | null }[]>`
        SELECT id, created_at, dialed_at FROM call.calls WHERE id = ANY(${placed.map((p) => p.id)}::uuid[])`;
      const byId = new Map(rows.map((r) => [r.id, r]));
      return placed.map((p) => {
        const row = byId.get(p.id);
        const dialed = row?.dialed_at?.getTime() ?? Number.NaN;
        return {
          total: dialed - p.sentAt,
          post: p.answeredAt - p.sentAt,
          queue: dialed - (row?.created_at.getTime() ?? Number.NaN),
        };
      });
    };

    log(
      `  ${platform.name}: ${settings.steadyAccounts} accounts, one call a second each, A idle (${settings.idleSeconds} s)`,
    );
    const idleEnd = now() + settings.idleSeconds * 1000;
    const idleLoad = await phaseLoad(platform.metrics);
    const idlePlaced = await steady(url, others, () => now() >= idleEnd);
    const idleLoaded = await idleLoad();
    await untilNothingLive(
      sql,
      others.map((o) => o.accountId),
      60_000,
    );

    log(
      `  ${platform.name}: A posts ${settings.burst} calls over ${settings.burstConnections} connections, the others go on`,
    );
    let aPlaced = 0;
    let aDone = false;
    let postsAnsweredAt = Number.POSITIVE_INFINITY;
    const burstLoad = await phaseLoad(platform.metrics);
    const burstStart = now();
    const aCalls: string[] = [];
    const burst = (async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: settings.burstConnections }, async () => {
          while (next < settings.burst) {
            const n = next++;
            aCalls.push((await place(url, a, n)).id);
            aPlaced++;
          }
        }),
      );
      postsAnsweredAt = now();
      // Until A's last call is dialed.
      for (;;) {
        const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM call.calls WHERE account_id = ${a.accountId} AND dialed_at IS NULL`;
        if (row!.n === 0) break;
        await sleep(200);
      }
      aDone = true;
    })();
    const burstPlaced = await steady(url, others, () => aDone);
    await burst;
    const burstLoaded = await burstLoad();
    log(`  ${platform.name}: A's ${aPlaced} calls all dialed; waiting for every call to end`);
    await untilNothingLive(sql, [a.accountId, ...others.map((o) => o.accountId)], 300_000);

    const [span] = await sql<{ first: Date; last: Date; notCompleted: number }[]>`
      SELECT min(dialed_at) AS first, max(dialed_at) AS last,
             count(*) FILTER (WHERE status <> 'completed')::int AS "notCompleted"
      FROM call.calls WHERE account_id = ${a.accountId}`;
    const [all] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM call.calls
      WHERE dialed_at BETWEEN ${span!.first} AND ${span!.last}
        AND account_id = ANY(${[a.accountId, ...others.map((o) => o.accountId)]}::uuid[])`;
    const dialSeconds = (span!.last.getTime() - span!.first.getTime()) / 1000;
    const during = burstPlaced.filter((p) => p.sentAt >= burstStart);
    const idle = await latencies(idlePlaced);
    const withBurst = await latencies(during);
    return {
      platform: platform.name,
      idle: summary(idle),
      burst: summary(withBurst),
      duringPosts: summary(withBurst.filter((_, i) => during[i]!.sentAt < postsAnsweredAt)),
      duringBacklog: summary(withBurst.filter((_, i) => during[i]!.sentAt >= postsAnsweredAt)),
      a: {
        calls: aCalls.length,
        postSeconds: (postsAnsweredAt - burstStart) / 1000,
        dialSeconds,
        dialsPerSecond: (aCalls.length - 1) / dialSeconds,
        allDialsPerSecond: (all!.n - 1) / dialSeconds,
        notCompleted: span!.notCompleted,
      },
      load: { idle: idleLoaded, burst: burstLoaded },
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Both topologies, one after the other, each started for this section alone. */
export async function fairnessRun(
  settings: FairnessSettings,
  base: Pick<BenchEnv, 'natsUrl' | 'adminDatabaseUrl' | 'logDir' | 'logLevel'>,
  log: Log,
): Promise<FairnessSection> {
  const work = mkdtempSync(join(tmpdir(), 'voice-fairness-'));
  const env: BenchEnv = {
    ...base,
    adminToken: `bench-admin-${randomBytes(12).toString('hex')}`,
    recordingSecret: `bench-recordings-${randomBytes(24).toString('hex')}`,
    simTimeScale: String(settings.simTimeScale),
    dataDir: work,
    callDialsPerSecond: String(settings.dialsPerSecond),
  };
  const runs: FairnessRun[] = [];
  try {
    const embedded = await startEmbedded(env);
    try {
      runs.push(await oneRun(embedded, env, settings, log));
    } finally {
      await Promise.allSettled(embedded.processes.map((p) => p.stop()));
    }
    const scratch = await scratchDatabase(env.adminDatabaseUrl);
    try {
      const nats = await startNatsTopology(env, scratch.url);
      try {
        runs.push(await oneRun(nats, env, settings, log));
      } finally {
        await Promise.allSettled(nats.processes.map((p) => p.stop()));
      }
    } finally {
      await scratch.drop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { settings, runs };
}
