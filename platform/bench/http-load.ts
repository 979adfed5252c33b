import autocannon from 'autocannon';
import { median, postgresPids, waitQuiet } from './support';

export interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Processes whose leftover work must settle before the next run (the platform's). */
  pids?: number[];
  /**
   * Waits until the work the run left behind is done (the platform's accepted calls all dialed
   * and ended); answers what it waited for, for the log.
   */
  drain?: () => Promise<string>;
}

export interface RunResult {
  /** Successful (2xx) responses per second. */
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function load(target: Target, durationS: number, connections: number): Promise<RunResult> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body ? { body: target.body } : {}),
    connections,
    duration: durationS,
    timeout: 10,
  });
  return {
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/**
 * Runs every target once per round, back to back, the order rotating each round so no target always
 * goes first (or right after the heaviest one); a short warm-up of each comes first and is dropped.
 */
export async function interleaved(
  targets: Target[],
  options: {
    rounds: number;
    durationS: number;
    connections: number;
    warmupS: number;
    log: (s: string) => void;
  },
): Promise<Map<string, RunResult[]>> {
  const results = new Map<string, RunResult[]>(targets.map((t) => [t.name, []]));
  for (const target of targets) {
    await load(target, options.warmupS, options.connections);
    await settle(target);
  }
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + round) % targets.length]!;
      const result = await load(target, options.durationS, options.connections);
      results.get(target.name)!.push(result);
      options.log(
        `  round ${round + 1} ${target.name.padEnd(22)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms${
          result.non2xx || result.errors ? `  non-2xx ${result.non2xx} errors ${result.errors}` : ''
        }`,
      );
      await settle(target, options.log);
    }
  }
  return results;
}

async function settle(target: Target, log?: (s: string) => void): Promise<void> {
  if (target.drain) {
    const drained = await target.drain();
    log?.(`    ${target.name}: ${drained}`);
  }
  // The databases' own leftover work counts too, whoever left it (a reference has no processes
  // of its own listed, but its queries and inserts ran in them): it would otherwise run during
  // the next target.
  await waitQuiet([...(target.pids ?? []), ...postgresPids()], 60_000);
}

/** Per round, `platform` over `reference`; the median of those ratios is what the report states. */
export function ratioOf(results: Map<string, RunResult[]>, platform: string, reference: string) {
  const p = results.get(platform)!;
  const r = results.get(reference)!;
  const perRound = p.map((run, i) => run.rps / r[i]!.rps);
  return { perRound, median: median(perRound) };
}

export function summary(runs: RunResult[]) {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
}
