import { setTimeout as delay } from 'node:timers/promises';
import type postgres from 'postgres';

/**
 * The most calls dialed and not ended at any one moment, from the calls' `dialed_at` (taken after
 * the account's dialed calls were counted) and `ended_at` (never after the end was stored).
 */
export function mostAtOnce(calls: readonly { dialed_at: Date | null; ended_at: Date | null }[]): number {
  const edges: [number, number][] = [];
  for (const call of calls) {
    if (!call.dialed_at) continue;
    edges.push([call.dialed_at.getTime(), 1]);
    if (call.ended_at) edges.push([call.ended_at.getTime(), -1]);
  }
  // An end and a dial in the same millisecond: the end first (the dial counted the call as ended).
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let live = 0;
  let most = 0;
  for (const [, step] of edges) {
    live += step;
    most = Math.max(most, live);
  }
  return most;
}

/** Waits until none of the account's calls is live (read from the call schema). */
export async function untilNoLiveCalls(
  sql: postgres.Sql,
  accountId: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM call.calls
      WHERE account_id = ${accountId} AND status IN ('initializing', 'ringing', 'in_progress')`;
    if (row!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} calls of ${accountId} still live`);
    await delay(100);
  }
}
