/**
 * What the machine and the platform's processes were doing over a phase of the fairness section:
 * the share of the machine's CPU that was busy (/proc/stat, every process on it, the bench's own
 * too), and for each platform process the CPU it used and how late its event loop ran (prom-client's
 * nodejs_eventloop_lag_* metrics, which it resets at each read of /metrics: a read at the phase's
 * start clears them, the read at its end covers the phase alone).
 */
import { readFileSync } from 'node:fs';
import { cpuSecondsOf, postgresPids } from '../support';

export interface ProcessLoad {
  name: string;
  /** CPU used over the phase, in cores (1 = one core all the time). */
  cores: number;
  /** The event loop's delay over the phase, ms. */
  lagP99: number;
  lagMax: number;
}

export interface PhaseLoad {
  /** Busy share of all the machine's cores over the phase (0..1). */
  machineBusy: number;
  /** CPU of every PostgreSQL process on the machine (the platform's and any other's), in cores. */
  postgresCores: number;
  /** CPU of the bench's own process (the clients), in cores. */
  benchCores: number;
  processes: ProcessLoad[];
}

export interface MetricsSource {
  name: string;
  url: string;
}

interface Reading {
  at: number;
  machine: { busy: number; total: number } | undefined;
  /** CPU seconds so far of the PostgreSQL processes alive now, by pid. */
  postgres: Map<number, number>;
  bench: number;
  processes: { name: string; cpuSeconds: number; lagP99: number; lagMax: number }[];
}

/** The first line of /proc/stat: jiffies per state summed over all cores (undefined where absent). */
function machineJiffies(): Reading['machine'] {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait are the states in which a core did nothing.
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** CPU seconds so far of each PostgreSQL process, by pid (one gone meanwhile reads 0: left out). */
function postgresSeconds(): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of postgresPids()) {
    const used = cpuSecondsOf(pid);
    if (used > 0) seconds.set(pid, used);
  }
  return seconds;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

async function read(sources: readonly MetricsSource[]): Promise<Reading> {
  const processes = await Promise.all(
    sources.map(async ({ name, url }) => {
      const text = await (await fetch(url)).text();
      return {
        name,
        cpuSeconds: metric(text, 'process_cpu_seconds_total'),
        lagP99: metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
        lagMax: metric(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
      };
    }),
  );
  const cpu = process.cpuUsage();
  return {
    at: performance.now(),
    machine: machineJiffies(),
    postgres: postgresSeconds(),
    bench: (cpu.user + cpu.system) / 1e6,
    processes,
  };
}

/** Starts measuring a phase; the function it answers ends it and says what the phase cost. */
export async function phaseLoad(sources: readonly MetricsSource[]): Promise<() => Promise<PhaseLoad>> {
  const start = await read(sources);
  return async () => {
    const end = await read(sources);
    const seconds = (end.at - start.at) / 1000;
    const machineBusy =
      start.machine && end.machine
        ? (end.machine.busy - start.machine.busy) / Math.max(1, end.machine.total - start.machine.total)
        : Number.NaN;
    // A backend that started during the phase counts from 0; one that ended is not seen (its CPU is lost).
    let postgres = 0;
    for (const [pid, used] of end.postgres) postgres += used - (start.postgres.get(pid) ?? 0);
    return {
      machineBusy,
      postgresCores: postgres / seconds,
      benchCores: (end.bench - start.bench) / seconds,
      processes: end.processes.map((p, i) => ({
        name: p.name,
        cores: (p.cpuSeconds - start.processes[i]!.cpuSeconds) / seconds,
        lagP99: p.lagP99,
        lagMax: p.lagMax,
      })),
    };
  };
}
