import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

// What else holds the calls' clock back during a window, read from Linux and V8 (linux only).

/** Nanoseconds this process's main thread has waited, runnable, for a CPU (/proc/self/schedstat). */
export function runQueueWaitNs(): number {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return Number.NaN;
  }
}

/** UDP datagrams the kernel dropped for a full receive buffer, machine-wide (/proc/net/snmp). */
export function udpReceiveDrops(): number {
  const lines = readFileSync('/proc/net/snmp', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('Udp:'));
  const names = lines[0]?.split(/\s+/) ?? [];
  const values = lines[1]?.split(/\s+/) ?? [];
  return Number(values[names.indexOf('RcvbufErrors')]);
}

export interface GcSummary {
  count: number;
  totalMs: number;
  maxMs: number;
  /** Young-generation collections (scavenges) among them, and the longest. */
  minor: number;
  minorMaxMs: number;
}

const GC_MINOR = 1;

/** Garbage-collection pauses from now until `stop()`. */
export function watchGc(): { stop(): GcSummary } {
  const summary: GcSummary = { count: 0, totalMs: 0, maxMs: 0, minor: 0, minorMaxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      summary.count++;
      summary.totalMs += entry.duration;
      summary.maxMs = Math.max(summary.maxMs, entry.duration);
      if ((entry as { detail?: { kind?: number } }).detail?.kind === GC_MINOR) {
        summary.minor++;
        summary.minorMaxMs = Math.max(summary.minorMaxMs, entry.duration);
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      observer.disconnect();
      return summary;
    },
  };
}

/**
 * UDP datagrams dropped at the receive buffers of sockets bound to local ports in min..max, as
 * /proc/net/udp counts them (per socket, while it is open).
 */
export function udpDropsAtPorts(min: number, max: number): number {
  let drops = 0;
  for (const row of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const cols = row.trim().split(/\s+/);
    const port = Number.parseInt(cols[1]?.split(':')[1] ?? '', 16);
    if (port >= min && port <= max) drops += Number(cols[12] ?? 0);
  }
  return drops;
}
