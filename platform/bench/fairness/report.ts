import type { FairnessSection, LatencySummary } from './index';
import type { PhaseLoad } from './load';

const LABELS = { embedded: 'platform, embedded default', nats: 'platform, NATS topology' } as const;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
const met = (ok: boolean) => (ok ? 'yes' : '**no**');
const row = (label: string, s: LatencySummary) =>
  `| ${label} | ${s.calls} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.postP50)} / ${ms(s.postP99)} | ${ms(s.queueP50)} / ${ms(s.queueP99)} |`;

const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(0)}%` : 'n/a');

/** One line per phase: the machine's busy share, then each process's CPU (cores) and event-loop delay. */
function loadLines(load: { idle: PhaseLoad; burst: PhaseLoad }): string[] {
  const names = load.idle.processes.map((p) => p.name);
  return [
    `| phase | machine CPU busy | PostgreSQL CPU cores | bench client CPU cores | ${names.map((n) => `${n}: CPU cores, event-loop delay p99 / max ms`).join(' | ')} |`,
    `|---|---:|---:|---:|${names.map(() => '---:').join('|')}|`,
    ...(
      [
        ['A idle', load.idle],
        ['A bursting', load.burst],
      ] as const
    ).map(
      ([label, phase]) =>
        `| ${label} | ${pct(phase.machineBusy)} | ${f2(phase.postgresCores)} | ${f2(phase.benchCores)} | ${phase.processes.map((p) => `${f2(p.cores)}, ${ms(p.lagP99)} / ${ms(p.lagMax)}`).join(' | ')} |`,
    ),
  ];
}

/** BENCHMARKS.md's fairness section. */
export function fairnessLines(section: FairnessSection): string[] {
  const s = section.settings;
  const out = [
    '## Fairness between accounts',
    '',
    `Account A (enterprise, max_concurrent_calls 10,000: never what holds it back) posts ${s.burst.toLocaleString('en-US')} calls at once over ${s.burstConnections} connections while ${s.steadyAccounts} other accounts (B..${String.fromCharCode(65 + s.steadyAccounts)}, plan pro) each place one call a second, until A\u2019s last call is dialed; before that, the same ${s.steadyAccounts} accounts place one call a second for ${s.idleSeconds} s with A idle. POST-to-dialed is from the moment the client sent a steady account\u2019s POST to the call\u2019s \`dialed_at\` (the database\u2019s clock on the same machine, when the call service handed it to the carrier); its parts are the POST\u2019s round trip and the time from the call\u2019s acceptance (\`created_at\`) to its dial, the dial queue\u2019s share. One call service instance, CALL_DIALS_PER_SECOND=${s.dialsPerSecond}, simulated carrier with SIM_TIME_SCALE=${s.simTimeScale} (a call lasts well under a second). Targets: the steady accounts\u2019 p99 <= 1 s with A bursting and within 2x of A idle; A\u2019s calls dialed at the configured rate (the instance\u2019s rate, shared round-robin with the steady accounts\u2019 calls). The last table of each topology says what the machine was doing in each phase: the busy share of all its cores (/proc/stat, everything on the machine), the CPU of every PostgreSQL process and of the bench client (in cores), and for each platform process its CPU and how late its event loop ran (p99 and max of the phase).`,
    '',
  ];
  for (const run of section.runs) {
    const ratio = run.burst.p99 / run.idle.p99;
    const queueRatio = run.burst.queueP99 / run.idle.queueP99;
    out.push(
      `### ${LABELS[run.platform]}`,
      '',
      '| steady accounts\u2019 calls | calls | POST-to-dialed p50 ms | p99 ms | max ms | of which the POST, p50 / p99 ms | accepted-to-dialed (the dial queue), p50 / p99 ms |',
      '|---|---:|---:|---:|---:|---:|---:|',
      row('A idle', run.idle),
      row('A bursting (until its last call is dialed)', run.burst),
      row('\u2026 while A\u2019s POSTs were being answered', run.duringPosts),
      row('\u2026 after, while A\u2019s backlog was dialed', run.duringBacklog),
      '',
      '| measure | value | target | met |',
      '|---|---:|---:|---|',
      `| p99 with A bursting | ${ms(run.burst.p99)} ms | <= 1000 ms | ${met(run.burst.p99 <= 1000)} |`,
      `| p99 bursting / p99 idle | ${f2(ratio)} | <= 2 | ${met(ratio <= 2)} |`,
      `| the same, the dial queue\u2019s part alone (accepted-to-dialed) | ${f2(queueRatio)} | <= 2 | ${met(queueRatio <= 2)} |`,
      `| A\u2019s POSTs answered | ${run.a.calls} in ${f1(run.a.postSeconds)} s | | |`,
      `| A\u2019s dials per second, first to last | ${f1(run.a.dialsPerSecond)} | | |`,
      `| every account\u2019s dials per second over that span / configured | ${f1(run.a.allDialsPerSecond)} / ${s.dialsPerSecond} = ${f2(run.a.allDialsPerSecond / s.dialsPerSecond)} | >= 0.9 | ${met(run.a.allDialsPerSecond >= 0.9 * s.dialsPerSecond)} |`,
      `| A\u2019s calls not completed | ${run.a.notCompleted} | 0 | ${met(run.a.notCompleted === 0)} |`,
      '',
      ...loadLines(run.load),
      '',
    );
  }
  return out;
}
