import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  /** What the process printed (its log file), for readiness and failures. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Extra node flags for the platform's own processes: BENCH_CPU_PROF=<dir> writes CPU profiles,
 * BENCH_NODE_FLAGS adds any others (e.g. `--trace-gc`).
 */
export function platformNodeFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return [...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...extra];
}

/**
 * Starts `node --import tsx <script> ...args` with only `env` (never the runner's NATS_URL or
 * DATABASE_URL by accident), output to a log file, and waits until `ready` shows up in it.
 */
export async function startChild(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string | undefined>,
  options: { ready: RegExp; logDir: string; ipc?: boolean; nodeFlags?: string[]; timeoutMs?: number },
): Promise<Child> {
  const logFile = join(options.logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output = () => readFileSync(logFile, 'utf8');
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (!options.ready.test(output())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${output().slice(-4000)}`);
    }
    await sleep(100);
  }
  return {
    name,
    child,
    pid: child.pid!,
    logFile,
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resident set size of a process in bytes (Linux /proc), or 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * The PostgreSQL server processes on this machine (Linux /proc): the embedded server's and the
 * server PostgreSQL's, whose background work (autovacuum, checkpoints) outlives a run.
 */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Waits until the given processes are nearly idle (under `threshold` of a core over 500 ms), so
 * one run's leftover work (calls ending, events relayed) does not land in the next run.
 */
export async function waitQuiet(pids: number[], maxMs = 30_000, threshold = 0.1): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const before = pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
    await sleep(500);
    const used = pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0) - before;
    if (used / 0.5 < threshold) return;
  }
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A JSON API call with an optional bearer key; throws on an unexpected status. */
export async function api<T = unknown>(
  base: string,
  method: string,
  path: string,
  options: { key?: string | undefined; body?: unknown; expect?: number[] } = {},
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  if (!(options.expect ?? [200, 201]).includes(res.status)) {
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
