import { DASHBOARD_TARGETS, type DashboardSection, type FrameSummary } from './index';

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : (bytes / 2 ** 20).toFixed(1));
const met = (ok: boolean) => (ok ? 'yes' : '**no**');
const load = (l: number[]) => l.map((n) => n.toFixed(2)).join(', ');

/** BENCHMARKS.md's dashboard section. */
export function dashboardLines(section: DashboardSection): string[] {
  const s = section.settings;
  const t = DASHBOARD_TARGETS;
  const heaps = section.heapByMinute;
  // With a single simulated minute there is no "after the first minute" apart from the end.
  const growth = heaps.length > 1 ? heaps.at(-1)! - heaps[0]! : Number.NaN;
  const f = section.stream;
  const responsive = f.p95 <= t.frameP95Ms && f.max <= t.frameMaxMs;
  const frames = (label: string, x: FrameSummary) =>
    `| ${label} | ${x.frames.toLocaleString('en-US')} | ${f1(x.p50)} | ${f1(x.p95)} | ${f1(x.p99)} | ${f1(x.max)} | ${x.slow} / ${x.frozen} | ${x.longTasks} / ${f1(x.longTaskMax)} |`;
  return [
    '## Dashboard: the calls board under a live stream',
    '',
    `The calls board of the operations dashboard (\`/dashboard\`, the committed build) in headless Chromium, served by the embedded default, while the bench answers the page\u2019s graphql-ws socket (Playwright\u2019s \`routeWebSocket\`) and pushes \`callStatusChanged\` events through the app\u2019s real subscription client: ${s.callsPerMinute.toLocaleString('en-US')} calls a minute, each seen in four statuses (initializing, ringing, in progress, completed), ${s.concurrent} calls in flight at once (all of them among the ${section.rowsShown} rows the board keeps, so nearly every event changes a row on screen), for ${s.minutes} simulated minute${s.minutes === 1 ? '' : 's'} at ${s.speed === 1 ? 'real time' : `${s.speed}x real time`}, sent every ${s.tickMs} ms. Measured in the page: the interval between animation frames (16.7 ms when the page keeps up at 60 Hz), long tasks (Chromium\u2019s, over 50 ms), and the JavaScript heap after a forced full garbage collection at the end of each simulated minute. First the open board is measured for ${s.idleSeconds} s with no events: the same page, browser and machine, the baseline the stream\u2019s figures compare with. Targets: responsive, frame interval p95 <= ${t.frameP95Ms} ms and no frame over ${t.frameMaxMs / 1000} s; memory flat, heap at the end minus heap after the first minute < ${t.heapGrowthBytes / 2 ** 20} MB.`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| events sent / calls | ${section.events.toLocaleString('en-US')} / ${section.calls.toLocaleString('en-US')} |`,
    `| wall time of the stream | ${f1(section.wallSeconds)} s |`,
    `| sender\u2019s worst lateness behind its schedule | ${f1(section.lateMsMax)} ms |`,
    `| heap after GC, after the first minute / at the end | ${heaps.length > 1 ? mb(heaps[0]) : 'n/a'} / ${mb(heaps.at(-1))} MB |`,
    `| heap after GC, each minute | ${heaps.map((h) => mb(h)).join(', ')} MB |`,
    `| rows shown at the end | ${section.rowsShown} |`,
    `| load average (1, 5, 15 min) at start / end | ${load(section.loadAtStart)} / ${load(section.loadAtEnd)} |`,
    '',
    '| board | frames | frame interval p50 ms | p95 ms | p99 ms | max ms | frames over 100 ms / over 1 s | long tasks, count / longest ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    frames(`idle (no events, ${s.idleSeconds} s)`, section.idle),
    frames('under the stream', f),
    '',
    '| target | value | threshold | met |',
    '|---|---:|---:|---|',
    `| responsive: frame interval p95 | ${f1(f.p95)} ms | <= ${t.frameP95Ms} ms | ${met(f.p95 <= t.frameP95Ms)} |`,
    `| responsive: longest frame | ${f1(f.max)} ms | <= ${t.frameMaxMs} ms | ${met(f.max <= t.frameMaxMs)} |`,
    `| responsive (both) | | | ${met(responsive)} |`,
    `| memory flat: heap growth after the first minute | ${Number.isFinite(growth) ? `${mb(growth)} MB` : 'n/a (one minute)'} | < ${t.heapGrowthBytes / 2 ** 20} MB | ${Number.isFinite(growth) ? met(growth < t.heapGrowthBytes) : 'n/a'} |`,
    '',
  ];
}
