/**
 * `pnpm bench dashboard`: the operations dashboard's calls board under the stream of issue 29, 1,000
 * calls a minute each seen in four statuses, at real time by default. The page is the built
 * dashboard served by the embedded default; its graphql-ws socket is answered by the bench
 * (platform/test/support/board-socket.ts), which pushes the events through the app's real
 * subscription client. Measured in the browser (headless Chromium): frame intervals, long tasks
 * (first on the open board with no events, the machine's baseline, then under the stream), and the
 * heap after a forced garbage collection at each simulated minute.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOARD_STATUSES, BoardCalls } from '../../test/support/board-calls';
import { answerBoardSocket, heapAfterGc } from '../../test/support/board-socket';
import { launchChromium, openPage } from '../../test/support/browser';
import { api, percentile, REPO_ROOT, sleep } from '../support';
import { type BenchEnv, startEmbedded } from '../topology';
import { type PageProbe, startProbe, takeProbe } from './probe';

export interface DashboardSettings {
  callsPerMinute: number;
  /** Simulated minutes of stream. */
  minutes: number;
  /** How much faster than real time they are sent (1: real time). */
  speed: number;
  /** Calls in flight at once (each lasts this many / callsPerMinute minutes, spread over its statuses). */
  concurrent: number;
  /** How often events are sent, ms of wall time. */
  tickMs: number;
  /** Seconds the open board is measured with no events first: the machine's own baseline. */
  idleSeconds: number;
}

/** Frame intervals and long tasks over one span, ms. */
export interface FrameSummary {
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Frames over 100 ms and over 1 s. */
  slow: number;
  frozen: number;
  longTasks: number;
  longTaskMax: number;
}

export interface DashboardSection {
  settings: DashboardSettings;
  events: number;
  calls: number;
  wallSeconds: number;
  /** The last tick's lateness behind its schedule, ms: the sender kept up when small. */
  lateMsMax: number;
  /** The open board with no events, the same browser and machine, just before the stream. */
  idle: FrameSummary;
  stream: FrameSummary;
  /** Heap after a forced GC at the end of each simulated minute, bytes (the last is the end). */
  heapByMinute: number[];
  rowsShown: number;
  /** `uptime`'s load averages (1, 5, 15 min) when the stream started and when it ended. */
  loadAtStart: number[];
  loadAtEnd: number[];
  screenshot: string;
}

type Log = (line: string) => void;

/** Thresholds of the targets (docs/dashboard.md, "Performance"). */
export const DASHBOARD_TARGETS = { frameP95Ms: 50, frameMaxMs: 1000, heapGrowthBytes: 8 * 2 ** 20 };

export async function dashboardRun(
  settings: DashboardSettings,
  base: Pick<BenchEnv, 'logDir' | 'logLevel'>,
  log: Log,
): Promise<DashboardSection> {
  const work = mkdtempSync(join(tmpdir(), 'voice-dashboard-'));
  // The embedded PostgreSQL runs as 'postgres' when we are root: it must be able to reach its folder.
  chmodSync(work, 0o755);
  const env: BenchEnv = {
    ...base,
    natsUrl: '',
    adminDatabaseUrl: '',
    adminToken: `bench-admin-${randomBytes(12).toString('hex')}`,
    recordingSecret: `bench-recordings-${randomBytes(24).toString('hex')}`,
    simTimeScale: '1',
    dataDir: work,
  };
  const [platform, browser] = await Promise.all([startEmbedded(env), launchChromium()]);
  try {
    const key = await accountKey(platform.url, env.adminToken);
    const { context, page, problems } = await openPage(browser);
    const socket = await answerBoardSocket(page);
    await page.goto(`${platform.url}/dashboard`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Live calls' }).waitFor();
    await socket.subscribed;
    await startProbe(page);
    await sleep(settings.idleSeconds * 1000);
    const idle = summarise(await takeProbe(page));
    log(
      `  idle board: frame p95 ${idle.p95.toFixed(1)} ms, max ${idle.max.toFixed(1)} ms, ${idle.longTasks} long tasks`,
    );
    const section = await stream(settings, socket.push, () => heapAfterGc(context, page), log);
    const rows = page.locator('[data-testid="calls-board"] tbody tr');
    // The board has taken the last event once the newest call is its first row.
    await rows
      .first()
      .and(page.locator(`[data-call-id="${section.newest}"]`))
      .waitFor();
    const probe = await takeProbe(page);
    section.heapByMinute.push(await heapAfterGc(context, page));
    const rowsShown = await rows.count();
    const dir = join(REPO_ROOT, '.data', 'bench');
    mkdirSync(dir, { recursive: true });
    const screenshot = join(dir, 'dashboard-board.png');
    await page.screenshot({ path: screenshot });
    if (problems.length > 0) throw new Error(`the page reported problems: ${problems.join('; ')}`);
    await context.close();
    return {
      settings,
      events: section.events,
      calls: section.calls,
      wallSeconds: section.wallSeconds,
      lateMsMax: section.lateMsMax,
      idle,
      stream: summarise(probe),
      heapByMinute: section.heapByMinute,
      rowsShown,
      loadAtStart: section.loadAtStart,
      loadAtEnd: loadavg(),
      screenshot,
    };
  } finally {
    await browser.close();
    await Promise.allSettled(platform.processes.map((p) => p.stop()));
    rmSync(work, { recursive: true, force: true });
  }
}

function summarise(probe: PageProbe): FrameSummary {
  const frames = [...probe.frames].sort((a, b) => a - b);
  return {
    frames: frames.length,
    p50: percentile(frames, 50),
    p95: percentile(frames, 95),
    p99: percentile(frames, 99),
    max: frames.at(-1) ?? Number.NaN,
    slow: frames.filter((f) => f > 100).length,
    frozen: frames.filter((f) => f > 1000).length,
    longTasks: probe.longTasks.length,
    longTaskMax: Math.max(0, ...probe.longTasks),
  };
}

async function accountKey(url: string, adminToken: string): Promise<string> {
  const account = await api<{ data: { id: string } }>(url, 'POST', '/admin/accounts', {
    key: adminToken,
    body: { name: 'Bench board' },
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
  return key.data.key;
}

/**
 * Sends the stream on a wall-clock schedule: each tick, the events of its slice of simulated time
 * (fractions carried over), catching up if a tick came late. Heap after a forced GC at the end of
 * every simulated minute but the last (taken after the page has caught up).
 */
async function stream(
  s: DashboardSettings,
  push: (event: ReturnType<BoardCalls['next']>) => void,
  heap: () => Promise<number>,
  log: Log,
) {
  const calls = new BoardCalls(s.concurrent);
  const eventsPerMs = (s.callsPerMinute * BOARD_STATUSES.length * s.speed) / 60_000;
  const wallMs = (s.minutes * 60_000) / s.speed;
  const total = Math.round(s.minutes * s.callsPerMinute * BOARD_STATUSES.length);
  const minuteMs = 60_000 / s.speed;
  const heapByMinute: number[] = [];
  const loadAtStart = loadavg();
  const started = performance.now();
  let lateMsMax = 0;
  let nextMinute = 1;
  for (let tick = 1; calls.sent < total; tick++) {
    const due = Math.min(total, Math.round(Math.min(tick * s.tickMs, wallMs) * eventsPerMs));
    while (calls.sent < due) push(calls.next());
    const elapsed = performance.now() - started;
    if (nextMinute < s.minutes && elapsed >= nextMinute * minuteMs) {
      heapByMinute.push(await heap());
      log(
        `  minute ${nextMinute}: ${calls.sent} events, heap ${(heapByMinute.at(-1)! / 2 ** 20).toFixed(1)} MB, load ${loadavg()[0]!.toFixed(1)}`,
      );
      nextMinute += 1;
    }
    const wait = (tick + 1) * s.tickMs - (performance.now() - started);
    lateMsMax = Math.max(lateMsMax, -wait);
    if (wait > 0) await sleep(wait);
  }
  return {
    events: calls.sent,
    calls: Math.ceil(calls.sent / BOARD_STATUSES.length),
    newest: calls.newest!,
    wallSeconds: (performance.now() - started) / 1000,
    lateMsMax: Math.max(0, lateMsMax),
    heapByMinute,
    loadAtStart,
  };
}
