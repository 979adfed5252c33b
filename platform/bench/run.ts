/**
 * `pnpm bench`: the platform (embedded default and NATS topology) side by side with reference
 * servers, in interleaved rounds, and real SIP calls against sipp, written to BENCHMARKS.md. Not
 * pass/fail: targets are reported as met or not. BENCH_QUICK=1 for a short run,
 * BENCH_ONLY=get,list,post,fanout,campaign,campaign-size,history,export,telephony,conversation,fairness,dashboard
 * (or the names as arguments: `pnpm bench telephony`) for some sections (both written to .data/bench/
 * instead),
 * BENCH_CPU_PROF=<dir> for CPU profiles of the platform, BENCH_NODE_FLAGS for other node flags of
 * its processes (and of the telephony bench's calling process). BENCH_TELEPHONY_CALLS=50,100 sets
 * the concurrent call counts. The conversation section's knobs: BENCH_CONVERSATION_CALLS (calls
 * one after another, default 2), BENCH_CONVERSATION_HANGOVERS (shorter end-of-utterance waits to
 * run too, ms, default 400), BENCH_CONVERSATION_BARGE_INS (default 10), BENCH_CONVERSATION_LEVELS
 * (concurrent calls, default 4,8; e.g. 4,8,16). BENCH_FAIRNESS_BURST: the fairness section's burst (10,000),
 * BENCH_FAIRNESS_DIALS: its CALL_DIALS_PER_SECOND (100).
 * The dashboard section's: BENCH_DASHBOARD_MINUTES (simulated minutes of stream, default 10) and
 * BENCH_DASHBOARD_SPEED (how much faster than real time, default 1; quick: 1 minute at 10x).
 * NATS_URL / DATABASE_URL (admin URL of a PostgreSQL server; a scratch database is made in it)
 * default to 127.0.0.1:4222 and postgres@127.0.0.1:5432.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { campaignSizeRun, contactList } from './campaign-size';
import { type ConversationBenchSettings, conversationRun } from './conversation';
import { type DashboardSettings, dashboardRun } from './dashboard';
import { exportSize } from './export';
import { type FairnessSettings, fairnessRun } from './fairness';
import { type FanoutRun, type FanoutTarget, fanoutRun, graphqlConnector, wsConnector } from './fanout';
import { historyRun } from './history';
import { interleaved, type RunResult, type Target } from './http-load';
import type { FanoutCommand, FanoutDone } from './publisher';
import { type MachineInfo, machineInfo, type Report, writeReport } from './report';
import { type Histories, type Seeded, seed, seedHistories } from './seed';
import { api, type Child, REPO_ROOT, sleep, startChild, waitQuiet } from './support';
import { type TelephonySettings, telephonyRun } from './telephony';
import {
  type BenchEnv,
  type Platform,
  type References,
  scratchDatabase,
  startEmbedded,
  startNatsTopology,
  startReferences,
} from './topology';

const QUICK = process.env.BENCH_QUICK === '1';
const PLATFORM_SECTIONS = ['get', 'list', 'post', 'fanout', 'campaign', 'campaign-size', 'history', 'export'];
const ONLY = process.argv.length > 2 ? process.argv.slice(2).join(',') : process.env.BENCH_ONLY;
const SECTIONS = new Set(
  (ONLY ?? [...PLATFORM_SECTIONS, 'telephony', 'conversation', 'fairness', 'dashboard'].join(','))
    .split(',')
    .map((s) => s.trim()),
);
const SETTINGS = QUICK
  ? {
      rounds: 3,
      durationS: 3,
      warmupS: 1,
      postWarmupS: 1,
      connections: 10,
      fanoutMs: 3000,
      contacts: 1000,
      exportCalls: 10_000,
      historyCalls: 100_000,
      historyRequests: 30,
      exportRounds: 1,
    }
  : {
      rounds: 3,
      durationS: 10,
      warmupS: 3,
      // The NATS topology's gateway spends more CPU per POST in its first seconds of POSTs than
      // after (docs/performance.md, Method notes): a longer POST warm-up measures
      // the processes as they run in production, long started, for every target alike.
      postWarmupS: 20,
      connections: 10,
      fanoutMs: 10_000,
      contacts: 10_000,
      exportCalls: 100_000,
      // The long history of the history section, and the export's larger size.
      historyCalls: 1_000_000,
      historyRequests: 200,
      exportRounds: 3,
    };
const TELEPHONY: TelephonySettings = {
  levels: (process.env.BENCH_TELEPHONY_CALLS ?? '50,100').split(',').map(Number),
  seconds: QUICK ? 5 : 10,
  rampMs: 2000,
  setupCalls: QUICK ? 50 : 200,
  rounds: 3,
};
const list = (value: string) => value.split(',').filter(Boolean).map(Number);
const CONVERSATION: ConversationBenchSettings = {
  calls: Number(process.env.BENCH_CONVERSATION_CALLS ?? (QUICK ? 1 : 2)),
  hangovers: list(process.env.BENCH_CONVERSATION_HANGOVERS ?? (QUICK ? '' : '400')),
  hangoverCalls: 1,
  bargeIns: Number(process.env.BENCH_CONVERSATION_BARGE_INS ?? (QUICK ? 3 : 10)),
  levels: list(process.env.BENCH_CONVERSATION_LEVELS ?? (QUICK ? '4' : '4,8')),
  maxP95Ms: 1500,
  spreadMs: 3000,
  sttRepeats: 1,
  ttsRepeats: QUICK ? 1 : 3,
  adminDatabaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
};
const FAIRNESS: FairnessSettings = {
  burst: Number(process.env.BENCH_FAIRNESS_BURST ?? (QUICK ? 2000 : 10_000)),
  burstConnections: 20,
  steadyAccounts: 10,
  idleSeconds: QUICK ? 10 : 30,
  dialsPerSecond: Number(process.env.BENCH_FAIRNESS_DIALS ?? 100),
  simTimeScale: 0.001,
};
/** Issue 29's stream: 1,000 calls a minute on the board's subscription, for ten minutes. */
const DASHBOARD: DashboardSettings = {
  callsPerMinute: 1000,
  minutes: Number(process.env.BENCH_DASHBOARD_MINUTES ?? (QUICK ? 1 : 10)),
  speed: Number(process.env.BENCH_DASHBOARD_SPEED ?? (QUICK ? 10 : 1)),
  // Calls of about six seconds from dialing to their end: all in flight are among the board's rows.
  concurrent: 100,
  tickMs: 100,
  idleSeconds: QUICK ? 10 : 60,
};
const LIST_CALLS = 1000;
/** The history section's short history (its long one is SETTINGS.historyCalls). */
const SHORT_HISTORY = 1000;
const FANOUT_ACCOUNTS = 100;
const FANOUT_CLIENTS = 1000;

const log = (line: string) => process.stdout.write(`${line}\n`);

/** Sends a fan-out command over IPC and waits for its `fanout-done`. */
function ipcPublish(child: ChildProcess, command: FanoutCommand): Promise<FanoutDone> {
  return new Promise((resolve) => {
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== 'fanout-done') return;
      child.off('message', onMessage);
      resolve(message as FanoutDone);
    };
    child.on('message', onMessage);
    child.send(command);
  });
}

async function main(): Promise<void> {
  const machine: MachineInfo = machineInfo();
  const logDir = join(REPO_ROOT, '.data', 'bench', 'logs');
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  log(`voice bench${QUICK ? ' (quick)' : ''}: ${machine.cpus} x ${machine.cpuModel}, node ${machine.node}`);
  log(`logs in ${logDir}`);
  const report: Report = {
    machine,
    quick: QUICK,
    settings: { ...SETTINGS, listCalls: LIST_CALLS },
    sections: {},
  };
  // Before the platform starts: the calls' pacing is measured on a machine not serving it too.
  if (SECTIONS.has('telephony')) {
    log(`telephony: real calls against sipp on loopback (${TELEPHONY.levels.join(', ')} concurrent)`);
    report.sections.telephony = await telephonyRun(TELEPHONY, logDir, log);
  }
  if (SECTIONS.has('conversation')) {
    log('conversation: real conversations with the local engines against scripted baresip callees');
    report.sections.conversation = await conversationRun(CONVERSATION, logDir, log);
  }
  if (SECTIONS.has('fairness')) {
    log(
      `fairness: one account bursts ${FAIRNESS.burst} calls while ${FAIRNESS.steadyAccounts} others place one a second`,
    );
    report.sections.fairness = await fairnessRun(
      FAIRNESS,
      {
        natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
        adminDatabaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        logDir,
        logLevel: process.env.BENCH_LOG_LEVEL,
      },
      log,
    );
  }
  if (SECTIONS.has('dashboard')) {
    log(
      `dashboard: the calls board under ${DASHBOARD.callsPerMinute} calls a minute for ${DASHBOARD.minutes} simulated minute(s) at ${DASHBOARD.speed}x`,
    );
    report.sections.dashboard = await dashboardRun(
      DASHBOARD,
      { logDir, logLevel: process.env.BENCH_LOG_LEVEL },
      log,
    );
  }
  if (PLATFORM_SECTIONS.some((s) => SECTIONS.has(s))) {
    const stopped = await platformSections(report, logDir);
    if (stopped) return;
  }

  // Only a full run (every section, full length) replaces BENCHMARKS.md.
  const out =
    QUICK || ONLY !== undefined
      ? join(REPO_ROOT, '.data', 'bench', QUICK ? 'BENCHMARKS-quick.md' : 'BENCHMARKS-partial.md')
      : join(REPO_ROOT, 'BENCHMARKS.md');
  writeFileSync(join(REPO_ROOT, '.data', 'bench', 'last-run.json'), JSON.stringify(report, null, 2));
  writeReport(out, report);
  // The repository's formatter aligns the tables (`pnpm lint` checks Markdown too).
  spawnSync(join(REPO_ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', out], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
  log(`written: ${out}`);
}

/** The platform's sections: both topologies and the reference servers. True when interrupted. */
async function platformSections(report: Report, logDir: string): Promise<boolean> {
  const work = mkdtempSync(join(tmpdir(), 'voice-bench-'));
  // The embedded PostgreSQL runs as 'postgres' when we are root: it must be able to reach its folder.
  chmodSync(work, 0o755);
  const env: BenchEnv = {
    natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    adminDatabaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    adminToken: `bench-admin-${randomBytes(12).toString('hex')}`,
    recordingSecret: `bench-recordings-${randomBytes(24).toString('hex')}`,
    // Calls of (nearly) zero length: the campaign measures overhead per call, POSTed calls end at once.
    simTimeScale: '0.00001',
    logDir,
    dataDir: work,
    logLevel: process.env.BENCH_LOG_LEVEL,
  };
  const children: Child[] = [];
  const scratch = await scratchDatabase(env.adminDatabaseUrl);
  const stopAll = async () => {
    await Promise.allSettled(children.map((c) => c.stop()));
    await scratch
      .drop()
      .catch((error: unknown) => log(`could not drop the scratch database: ${String(error)}`));
    rmSync(work, { recursive: true, force: true });
  };
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    log('interrupted: stopping everything');
    void stopAll().finally(() => process.exit(130));
  });

  try {
    log('starting the embedded default and the NATS topology');
    const embedded = await startEmbedded(env);
    children.push(...embedded.processes);
    const nats = await startNatsTopology(env, scratch.url);
    children.push(...nats.processes);

    log('seeding (accounts, keys, agents, calls)');
    const sizes = {
      listCalls: LIST_CALLS,
      exportCalls: SETTINGS.exportCalls,
      fanoutAccounts: FANOUT_ACCOUNTS,
    };
    const [seedEmbedded, seedNats] = await Promise.all([
      seed(embedded.url, embedded.databaseUrl, env.adminToken, sizes),
      seed(nats.url, nats.databaseUrl, env.adminToken, sizes),
    ]);

    log('starting the reference servers');
    const refs = await startReferences(
      env,
      { databaseUrl: embedded.databaseUrl, accountId: seedEmbedded.main.accountId },
      { databaseUrl: nats.databaseUrl, accountId: seedNats.main.accountId },
    );
    children.push(...refs.processes);
    const publisher = await startChild(
      'nats-publisher',
      'platform/bench/nats-publisher.ts',
      [],
      {
        NATS_URL: env.natsUrl,
      },
      { ready: /^/, logDir, ipc: true },
    );
    children.push(publisher);

    const platforms = { embedded, nats };
    const seeded = { embedded: seedEmbedded, nats: seedNats };

    if (SECTIONS.has('get')) {
      log('GET /v1/agents/{id}');
      report.sections.get = Object.fromEntries(
        await interleaved(
          readTargets(platforms, seeded, refs, {
            a: '/json',
            b: (s) => `/agents/${s.main.agentId}`,
            platform: (s) => `/v1/agents/${s.main.agentId}`,
          }),
          { ...SETTINGS, log },
        ),
      );
    }
    if (SECTIONS.has('list')) {
      log('GET /v1/calls');
      report.sections.list = Object.fromEntries(
        await interleaved(
          readTargets(platforms, seeded, refs, {
            a: '/json',
            b: () => '/calls',
            platform: () => '/v1/calls',
          }),
          { ...SETTINGS, log },
        ),
      );
    }
    if (SECTIONS.has('post')) {
      log('POST /v1/call');
      report.sections.post = Object.fromEntries(
        await interleaved(writeTargets(platforms, seeded, refs), {
          ...SETTINGS,
          warmupS: SETTINGS.postWarmupS,
          log,
        }),
      );
    }
    if (SECTIONS.has('fanout')) {
      const targets = fanoutTargets(platforms, seeded, refs, publisher.child);
      const scenarios = [
        { name: 'many-accounts', clients: FANOUT_CLIENTS, accounts: FANOUT_ACCOUNTS, rate: 100 },
        { name: 'one-account', clients: FANOUT_CLIENTS, accounts: 1, rate: 10 },
      ];
      report.sections.fanout = {};
      for (const scenario of scenarios) {
        log(
          `fan-out: ${scenario.clients} clients over ${scenario.accounts} account(s) at ${scenario.rate} events/s`,
        );
        const runs: Record<string, FanoutRun[]> = {};
        for (const t of targets) runs[t.name] = [];
        for (let round = 0; round < SETTINGS.rounds; round++) {
          for (let i = 0; i < targets.length; i++) {
            const base = targets[(i + round) % targets.length]!;
            const target = { ...base, accounts: base.accounts.slice(0, scenario.accounts) };
            const run = await fanoutRun(target, {
              clients: scenario.clients,
              rate: scenario.rate,
              durationMs: SETTINGS.fanoutMs,
            });
            runs[target.name]!.push(run);
            log(
              `  round ${round + 1} ${target.name.padEnd(10)} ${run.deliveredPerS.toFixed(0).padStart(6)} deliveries/s (${(run.deliveredShare * 100).toFixed(1)}%)  p50 ${run.p50.toFixed(1)} ms  p99 ${run.p99.toFixed(1)} ms${run.connectErrors ? `  connect errors ${run.connectErrors}` : ''}`,
            );
            await waitQuiet(
              [...embedded.processes, ...nats.processes].map((p) => p.pid),
              30_000,
            );
          }
        }
        report.sections.fanout[scenario.name] = { ...scenario, runs };
      }
    }
    if (SECTIONS.has('campaign')) {
      report.sections.campaign = {};
      for (const platform of [embedded, nats]) {
        await waitQuiet(
          platform.processes.map((p) => p.pid),
          60_000,
        );
        const result = await campaignRun(platform, seeded[platform.name], SETTINGS.contacts);
        log(
          `campaign ${platform.name}: ${result.contacts} contacts at cap ${result.cap} in ${result.totalS.toFixed(1)} s (${result.callsPerS.toFixed(1)} calls/s)`,
        );
        report.sections.campaign[platform.name] = result;
      }
    }
    if (SECTIONS.has('campaign-size')) {
      log('campaign size: 100,000 contacts against 1,000 at the same cap');
      report.sections.campaignSize = {};
      for (const platform of [embedded, nats]) {
        report.sections.campaignSize[platform.name] = await campaignSizeRun(
          platform,
          seeded[platform.name],
          platform.campaignMetricsUrl,
          log,
        );
      }
    }
    const histories = new Map<Platform, Promise<Histories>>();
    // Both sections read the long history: seeded once per platform, when the first asks.
    const historiesOf = (platform: Platform) => {
      if (!histories.has(platform)) {
        log(`seeding ${platform.name}: ${SHORT_HISTORY} and ${SETTINGS.historyCalls} calls in two accounts`);
        histories.set(platform, seededHistories(platform, seeded[platform.name], env.adminToken));
      }
      return histories.get(platform)!;
    };
    if (SECTIONS.has('history')) {
      report.sections.history = {};
      for (const platform of [embedded, nats]) {
        const accounts = await historiesOf(platform);
        await waitQuiet(
          platform.processes.map((p) => p.pid),
          60_000,
        );
        log(`history ${platform.name}: GET /v1/calls, ${SETTINGS.historyRequests} requests of each`);
        report.sections.history[platform.name] = await historyRun(
          platform,
          accounts,
          { requests: SETTINGS.historyRequests, warmup: 5 },
          log,
        );
      }
    }
    if (SECTIONS.has('export')) {
      report.sections.export = {};
      for (const platform of [embedded, nats]) {
        const accounts = await historiesOf(platform);
        log(`export ${platform.name}: CSV and JSON lines against COPY, ${SETTINGS.exportRounds} round(s)`);
        report.sections.export[platform.name] = [
          await exportSize(
            platform,
            seeded[platform.name].exporter,
            SETTINGS.exportCalls,
            SETTINGS.exportRounds,
            log,
          ),
          // The long history once: a round of it takes minutes.
          await exportSize(platform, accounts.large, accounts.large.calls, 1, log),
        ];
      }
    }
  } finally {
    if (!interrupted) await stopAll();
  }
  return interrupted;
}

type Platforms = { embedded: Platform; nats: Platform };
type SeededBoth = { embedded: Seeded; nats: Seeded };

/**
 * The history accounts seeded, then the database settled (VACUUM (ANALYZE), CHECKPOINT) as a
 * long-lived history is: its rows all visible, its statistics current.
 */
async function seededHistories(platform: Platform, seeded: Seeded, adminToken: string): Promise<Histories> {
  const started = Date.now();
  const accounts = await seedHistories(
    platform.url,
    platform.databaseUrl,
    adminToken,
    String(seeded.template.id),
    {
      small: SHORT_HISTORY,
      large: SETTINGS.historyCalls,
    },
  );
  const settled = await settleDatabase(platform.databaseUrl);
  log(`  ${platform.name}: seeded in ${((Date.now() - started) / 1000).toFixed(0)} s; ${settled}`);
  return accounts;
}

function auth(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The read comparison's six targets: (a), (b) on each database, (c), and both platforms. */
function readTargets(
  p: Platforms,
  s: SeededBoth,
  refs: References,
  paths: { a: string; b: (s: Seeded) => string; platform: (s: Seeded) => string },
): Target[] {
  const pids = (platform: Platform) => platform.processes.map((c) => c.pid);
  return [
    { name: 'a', url: refs.a.url + paths.a },
    { name: 'b-embedded-pg', url: refs.bEmbedded.url + paths.b(s.embedded) },
    { name: 'b-nats-pg', url: refs.bNats.url + paths.b(s.nats) },
    { name: 'c', url: refs.cd.url + paths.b(s.nats) },
    {
      name: 'embedded',
      url: p.embedded.url + paths.platform(s.embedded),
      headers: auth(s.embedded.main.key),
      pids: pids(p.embedded),
    },
    {
      name: 'nats',
      url: p.nats.url + paths.platform(s.nats),
      headers: auth(s.nats.main.key),
      pids: pids(p.nats),
    },
  ];
}

/**
 * Accepted calls wait in the call service's dial queue (CALL_DIALS_PER_SECOND) after a run: the
 * next run starts once every call of the account has ended, so it never competes with the last
 * one's backlog. Answers how many were left and how long they took.
 */
async function untilNoLiveCalls(base: string, key: string): Promise<string> {
  const started = Date.now();
  const live = async () => {
    let total = 0;
    for (const status of ['initializing', 'ringing', 'in_progress']) {
      const page = await api<{ data: { total: number } }>(
        base,
        'GET',
        `/v1/calls?status=${status}&page_size=1`,
        { key },
      );
      total += page.data.total;
    }
    return total;
  };
  const left = await live();
  let now = left;
  while (now > 0 && Date.now() - started < 600_000) {
    await sleep(500);
    now = await live();
  }
  const seconds = (Date.now() - started) / 1000;
  return `${left} calls still live after the run, all ended after ${seconds.toFixed(1)} s${
    left > 0 && seconds > 1 ? ` (${(left / seconds).toFixed(0)} calls/s)` : ''
  }${now > 0 ? `; ${now} STILL LIVE after 600 s` : ''}`;
}

/**
 * After a POST run (and its drain), the database it wrote to is brought to the state its
 * background work would reach anyway: VACUUM (ANALYZE) of the rows the run updated and inserted,
 * then a CHECKPOINT of the pages it dirtied. Done here, between runs, neither lands in the middle
 * of the next run, of the other platform or of the reference: the embedded PostgreSQL runs
 * autovacuum (a naptime of a minute), every server checkpoints, and this machine's server
 * PostgreSQL runs with `autovacuum = off` (unlike infra/postgres/postgresql.conf), where the dead
 * rows of every run would otherwise pile up for the next to wade through. Every target gets the
 * same, (d) included.
 */
async function settleDatabase(databaseUrl: string): Promise<string> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const started = Date.now();
    await sql`VACUUM (ANALYZE)`;
    await sql`CHECKPOINT`;
    return `VACUUM (ANALYZE) and CHECKPOINT, ${Date.now() - started} ms`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Numbers ending 0004 fail at once (no ringing): each POSTed call costs one more transition. */
function callBody(agentId: string): string {
  return JSON.stringify({
    agent_id: agentId,
    source_number: '+14155550100',
    phone_number: '+14155550004',
    metadata: { name: 'Jordan', order: 4711 },
  });
}

function writeTargets(p: Platforms, s: SeededBoth, refs: References): Target[] {
  const json = { 'content-type': 'application/json' };
  const pids = (platform: Platform) => platform.processes.map((c) => c.pid);
  return [
    {
      name: 'd',
      url: `${refs.cd.url}/call`,
      method: 'POST',
      headers: json,
      body: callBody(s.nats.writer.agentId),
      // (d) writes its rows to the NATS topology's database.
      drain: () => settleDatabase(p.nats.databaseUrl),
    },
    {
      name: 'embedded',
      url: `${p.embedded.url}/v1/call`,
      method: 'POST',
      headers: { ...json, ...auth(s.embedded.writer.key) },
      body: callBody(s.embedded.writer.agentId),
      pids: pids(p.embedded),
      drain: async () =>
        `${await untilNoLiveCalls(p.embedded.url, s.embedded.writer.key)}; ${await settleDatabase(p.embedded.databaseUrl)}`,
    },
    {
      name: 'nats',
      url: `${p.nats.url}/v1/call`,
      method: 'POST',
      headers: { ...json, ...auth(s.nats.writer.key) },
      body: callBody(s.nats.writer.agentId),
      pids: pids(p.nats),
      drain: async () =>
        `${await untilNoLiveCalls(p.nats.url, s.nats.writer.key)}; ${await settleDatabase(p.nats.databaseUrl)}`,
    },
  ];
}

function fanoutTargets(
  p: Platforms,
  s: SeededBoth,
  refs: References,
  publisher: ChildProcess,
): FanoutTarget[] {
  const ids = (seeded: Seeded) => seeded.fanout.map((t) => t.accountId);
  const keys = (seeded: Seeded) => seeded.fanout.map((t) => t.key);
  return [
    {
      name: 'e',
      accounts: ids(s.nats),
      template: s.nats.template,
      connect: wsConnector(refs.e.url, ids(s.nats)),
      publish: (c) => ipcPublish(publisher, { type: 'fanout', ...c, prefix: refs.prefix }),
    },
    {
      name: 'embedded',
      accounts: ids(s.embedded),
      template: s.embedded.template,
      connect: graphqlConnector(p.embedded.url, keys(s.embedded)),
      publish: (c) => ipcPublish(p.embedded.serving.child, { type: 'fanout', ...c }),
    },
    {
      name: 'nats',
      accounts: ids(s.nats),
      template: s.nats.template,
      connect: graphqlConnector(p.nats.url, keys(s.nats)),
      publish: (c) => ipcPublish(publisher, { type: 'fanout', ...c, prefix: p.nats.busPrefix! }),
    },
  ];
}

export interface CampaignResult {
  contacts: number;
  cap: number;
  totalS: number;
  callsPerS: number;
  /** Wall time each call held one of the cap's slots: all overhead, the calls being zero-length. */
  slotMsPerCall: number;
  outcomes: Record<string, number>;
}

async function campaignRun(platform: Platform, seeded: Seeded, count: number): Promise<CampaignResult> {
  const cap = 50;
  const started = performance.now();
  const created = await api<{ data: { id: string } }>(platform.url, 'POST', '/v1/campaigns', {
    key: seeded.campaign.key,
    body: {
      name: `Bench ${randomUUID().slice(0, 8)}`,
      agent_id: seeded.campaign.agentId,
      phone_number: '+14155550100',
      max_concurrent_calls: cap,
      contacts: contactList(count),
    },
  });
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    const campaign = await api<{ data: { status: string; counts: Record<string, number> } }>(
      platform.url,
      'GET',
      `/v1/campaigns/${created.data.id}`,
      { key: seeded.campaign.key },
    );
    if (campaign.data.status === 'completed' || Date.now() > deadline) {
      const totalS = (performance.now() - started) / 1000;
      return {
        contacts: count,
        cap,
        totalS,
        callsPerS: count / totalS,
        slotMsPerCall: (totalS * 1000 * cap) / count,
        outcomes: campaign.data.counts,
      };
    }
    await sleep(250);
  }
}

export type { RunResult };

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
