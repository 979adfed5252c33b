import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { type CampaignSizeSection, campaignSizeLines } from './campaign-size';
import type { ConversationSection } from './conversation';
import { conversationLines } from './conversation/report';
import type { DashboardSection } from './dashboard';
import { dashboardLines } from './dashboard/report';
import type { ExportSize } from './export';
import type { FairnessSection } from './fairness';
import { fairnessLines } from './fairness/report';
import { type FanoutRun, fanoutSummary } from './fanout';
import type { HistoryRun } from './history';
import { type RunResult, summary } from './http-load';
import { exportLines, historyLines } from './scale-report';
import { median } from './support';
import type { TelephonySection } from './telephony';
import { telephonyLines } from './telephony/report';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  date: string;
}

export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
  };
}

type Runs = Record<string, RunResult[]>;

export interface Report {
  machine: MachineInfo;
  quick: boolean;
  settings: Record<string, number>;
  sections: {
    get?: Runs;
    list?: Runs;
    post?: Runs;
    fanout?: Record<
      string,
      { clients: number; accounts: number; rate: number; runs: Record<string, FanoutRun[]> }
    >;
    campaign?: Record<
      string,
      { contacts: number; cap: number; totalS: number; callsPerS: number; slotMsPerCall: number }
    >;
    campaignSize?: CampaignSizeSection;
    history?: Record<string, HistoryRun>;
    export?: Record<string, ExportSize[]>;
    telephony?: TelephonySection;
    conversation?: ConversationSection;
    fairness?: FairnessSection;
    dashboard?: DashboardSection;
  };
}

/** Everything after this line in BENCHMARKS.md is kept when the file is written again. */
const NOTES_MARKER = '<!-- notes: kept across runs -->';

const LABELS: Record<string, string> = {
  a: '(a) bare Fastify JSON route',
  'b-embedded-pg': '(b) Fastify + postgres.js, embedded PostgreSQL',
  'b-nats-pg': '(b) Fastify + postgres.js, server PostgreSQL',
  c: '(c) Fastify -> NATS -> responder (same query)',
  d: '(d) Fastify + zod -> NATS -> responder INSERT',
  e: '(e) bare ws server forwarding NATS events',
  embedded: 'platform, embedded default',
  nats: 'platform, NATS topology',
};

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

function runsTable(runs: Runs): string[] {
  const lines = [
    '| server | req/s (median) | p50 ms | p99 ms | per round req/s | non-2xx / errors |',
    '|---|---:|---:|---:|---|---:|',
  ];
  for (const [name, list] of Object.entries(runs)) {
    const s = summary(list);
    lines.push(
      `| ${LABELS[name] ?? name} | ${f0(s.rps)} | ${f1(s.p50)} | ${f1(s.p99)} | ${list.map((r) => f0(r.rps)).join(', ')} | ${s.non2xx} / ${s.errors} |`,
    );
  }
  return lines;
}

interface Comparison {
  platform: string;
  reference: string;
  target?: number;
  note?: string;
}

function ratioTable(runs: Runs, comparisons: Comparison[]): string[] {
  const lines = ['| ratio | per round | median | target | met |', '|---|---|---:|---:|---|'];
  for (const c of comparisons) {
    const p = runs[c.platform];
    const r = runs[c.reference];
    if (!p || !r) continue;
    const perRound = p.map((run, i) => run.rps / r[i]!.rps);
    const m = median(perRound);
    const met = c.target === undefined ? '' : m >= c.target ? 'yes' : '**no**';
    lines.push(
      `| ${c.platform} / ${c.reference}${c.note ? ` (${c.note})` : ''} | ${perRound.map(f2).join(', ')} | ${f2(m)} | ${c.target === undefined ? '-' : `>= ${c.target}`} | ${met} |`,
    );
  }
  return lines;
}

const READ_COMPARISONS = (targets: boolean): Comparison[] => [
  { platform: 'embedded', reference: 'b-embedded-pg', ...(targets ? { target: 0.6 } : {}) },
  { platform: 'nats', reference: 'c', ...(targets ? { target: 0.8 } : {}) },
  { platform: 'nats', reference: 'b-nats-pg' },
  { platform: 'c', reference: 'b-nats-pg', note: 'the hop alone' },
  { platform: 'b-embedded-pg', reference: 'a', note: 'a query' },
];

export function writeReport(path: string, report: Report): void {
  const m = report.machine;
  const s = report.settings;
  const out: string[] = [
    '# Benchmarks',
    '',
    `Written by \`pnpm bench\` (platform/bench/run.ts)${report.quick ? ' in quick mode (BENCH_QUICK=1): short runs, indicative only' : ''}.`,
    '',
    `- Machine: ${m.cpus} cores (\`nproc\`), ${m.cpuModel}, ${m.memoryGiB} GiB; shared and throttled, other work running`,
    `- Node ${m.node}; date ${m.date}`,
    `- Method: each comparison runs its servers back to back, in ${s.rounds} interleaved rounds (the order rotates each round) after a ${s.warmupS} s warm-up of each (${s.postWarmupS} s for POST /v1/call); autocannon ${s.connections} connections, ${s.durationS} s a run. Ratios are computed per round and their median is reported: absolute figures are not comparable across runs on this machine.`,
    '- The platform runs as shipped: auth (API key), the per-key rate limit (an enterprise account of 1,000,000/min, counted in PostgreSQL; at these rates its places are leased to the gateway half a second ahead, as for any key sending 50 or more requests a second: docs/architecture.md, "Rate limits on the hot path"), validation, LOG_LEVEL info (its default; logs to a file). SIM_TIME_SCALE=0.00001 (calls of about zero length). MAX_CONNECTIONS_PER_IP=0: every bench client comes from one address, as from a proxy.',
    '- The reference servers (platform/bench/reference/) run the platform\u2019s own SQL, with no auth, no rate limit and no logging. (b) runs twice, against the embedded PostgreSQL and against the server PostgreSQL the NATS topology uses, so each platform is compared on its own database.',
    '',
  ];
  const sec = report.sections;
  if (sec.get) {
    out.push(
      '## GET /v1/agents/{id}',
      '',
      'The agent is about 13 KB, most of it its generated prompt. (b) and (c) read its whole row on every GET and serialise it. The agent service reads the whole row on an agent\u2019s first GET and after each change; otherwise it reads only the row\u2019s version (`xmin`, `updated_at`) and answers the JSON it kept for that version (services/agent/src/app/agent-replies.ts), so every GET still sees the agent as stored at that moment.',
      '',
      ...runsTable(sec.get),
      '',
      ...ratioTable(sec.get, READ_COMPARISONS(true)),
      '',
    );
  }
  if (sec.list) {
    out.push(
      `## GET /v1/calls (first page of 20, account with ${s.listCalls} calls)`,
      '',
      ...runsTable(sec.list),
      '',
      ...ratioTable(sec.list, READ_COMPARISONS(false)),
      '',
    );
  }
  if (sec.post) {
    out.push(
      '## POST /v1/call',
      '',
      'Each call is placed for real: the agent copy (kept in the call service between calls, dropped when the agent changes), then the call row and its first transition in one statement (calls placed while one is in flight go together in the next), its first status published to live subscribers; the POST answers once that is stored. The call then waits its turn in the call service\u2019s dial queue (CALL_DIALS_PER_SECOND, default 100 per instance, like a trunk\u2019s calls-per-second) and is dialed by the simulated carrier: numbers ending 0004 fail at once, so each call also costs its final transition and CALL_ENDED, relayed to the webhook and campaign consumers. That work goes on during the run at the dial rate; after each run the bench waits until every call of the run has ended (the log shows how many and how long) before the next run starts. After every run, (d)\u2019s included, the bench then runs VACUUM (ANALYZE) and CHECKPOINT on the database the run wrote to and waits until the PostgreSQL servers are idle too: the background work a run leaves (the embedded PostgreSQL\u2019s autovacuum, checkpoints; this machine\u2019s server PostgreSQL runs with `autovacuum = off`, unlike infra/postgres/postgresql.conf) is done between runs instead of landing in the next one, whichever target that is. (d) inserts one row.',
      '',
      ...runsTable(sec.post),
      '',
      ...ratioTable(sec.post, [
        { platform: 'embedded', reference: 'd', target: 0.7 },
        { platform: 'nats', reference: 'd', target: 0.7 },
      ]),
      '',
    );
  }
  if (sec.fanout) {
    out.push(
      '## Subscription fan-out',
      '',
      'graphql-ws clients (key in connection_init, `callStatusChanged` with nine fields) vs plain WebSocket clients of (e), which forwards the raw event. Synthetic call status events carry a real call record and are published where the call service publishes them (NATS; on the embedded default, its in-process bus). Latency is publish to receipt at the client; delivered rate is events received per second of publishing.',
      '',
    );
    for (const [name, scenario] of Object.entries(sec.fanout)) {
      out.push(
        `### ${scenario.clients} clients over ${scenario.accounts} account(s), ${scenario.rate} events/s (${name})`,
        '',
        '| server | delivered/s (median) | delivered share | p50 ms | p99 ms | connect errors |',
        '|---|---:|---:|---:|---:|---:|',
      );
      for (const [target, runs] of Object.entries(scenario.runs)) {
        const sm = fanoutSummary(runs);
        out.push(
          `| ${LABELS[target] ?? target} | ${f0(sm.deliveredPerS)} | ${(sm.deliveredShare * 100).toFixed(1)}% | ${f1(sm.p50)} | ${f1(sm.p99)} | ${sm.connectErrors} |`,
        );
      }
      out.push(
        '',
        '| ratio to (e) | delivered rate, per round | median (target >= 0.7) | p99 ratio, per round | median (target <= 2) | met |',
        '|---|---|---:|---|---:|---|',
      );
      const e = scenario.runs.e ?? [];
      for (const target of ['embedded', 'nats']) {
        const runs = scenario.runs[target];
        if (!runs) continue;
        const rate = runs.map((r, i) => r.deliveredPerS / e[i]!.deliveredPerS);
        const p99 = runs.map((r, i) => r.p99 / e[i]!.p99);
        const met = median(rate) >= 0.7 && median(p99) <= 2 ? 'yes' : '**no**';
        out.push(
          `| ${target} | ${rate.map(f2).join(', ')} | ${f2(median(rate))} | ${p99.map(f2).join(', ')} | ${f2(median(p99))} | ${met} |`,
        );
      }
      out.push('');
    }
  }
  if (sec.campaign) {
    out.push(
      '## Campaign',
      '',
      'One campaign per platform, contacts all distinct and answering, cap 50, calls of about zero length (SIM_TIME_SCALE=0.00001): the time is the platform\u2019s own overhead per call (staged create, claim under the cap, call.create, agent snapshot, transitions, CALL_ENDED consumed, slot released), bounded below by the dial rate (CALL_DIALS_PER_SECOND, 100 a second per call-service instance; the bench runs one). Timed from the POST to `completed`.',
      '',
      '| platform | contacts | cap | total s | calls/s | slot time per call (ms) |',
      '|---|---:|---:|---:|---:|---:|',
    );
    for (const [name, r] of Object.entries(sec.campaign)) {
      out.push(
        `| ${LABELS[name] ?? name} | ${r.contacts} | ${r.cap} | ${f1(r.totalS)} | ${f1(r.callsPerS)} | ${f1(r.slotMsPerCall)} |`,
      );
    }
    out.push('');
  }
  if (sec.campaignSize) out.push(...campaignSizeLines(sec.campaignSize, LABELS));
  if (sec.history) out.push(...historyLines(sec.history));
  if (sec.export) out.push(...exportLines(sec.export));
  if (sec.telephony) out.push(...telephonyLines(sec.telephony, m.cpus));
  if (sec.conversation) out.push(...conversationLines(sec.conversation));
  if (sec.fairness) out.push(...fairnessLines(sec.fairness));
  if (sec.dashboard) out.push(...dashboardLines(sec.dashboard));
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const notes = previous.includes(NOTES_MARKER)
    ? previous.slice(previous.indexOf(NOTES_MARKER))
    : NOTES_MARKER;
  writeFileSync(path, `${out.join('\n')}\n${notes.trimEnd()}\n`);
}
