import { readdir, readlink, realpath } from 'node:fs/promises';
import type { Logger } from '@voice/shared';

/**
 * The processes still working in `dataDir`: the backends of a server whose postmaster died
 * abruptly (SIGKILL, out of memory). Found by their working folder, which every PostgreSQL process
 * sets to its data folder; backends run in sessions of their own, so no process group holds them.
 * Linux only (/proc); elsewhere none is found and the new server waits for them to notice and exit.
 */
export async function leftoverProcesses(dataDir: string): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const folder = await realpath(dataDir).catch(() => dataDir);
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    // Gone meanwhile, or another user's process we may not look into: not ours to kill.
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => undefined);
    if (cwd === folder) found.push(Number(entry));
  }
  return found;
}

/**
 * Kills what is left of a dead server before a new one starts: a leftover backend keeps the old
 * shared memory (the new server refuses to start while it does) and keeps a pooled client
 * connection open, answering its next query with "terminating connection due to unexpected
 * postmaster exit" (57P01) even once a new server is up.
 */
export async function killLeftovers(dataDir: string, log: Logger): Promise<void> {
  const pids = await leftoverProcesses(dataDir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Exited meanwhile.
    }
  }
  if (pids.length > 0) log.warn({ pids }, 'killed processes the previous embedded PostgreSQL left');
}
