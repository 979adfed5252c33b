import { setTimeout as delay } from 'node:timers/promises';
import { mostAtOnce } from '@voice/shared/testing';
import type postgres from 'postgres';

/**
 * The most calls dialed and not ended at any one moment, from the calls' `dialed_at` (taken after
 * the account's dialed calls were counted) and `ended_at` (never after the end was stored).
 */
export function mostDialedAtOnce(
  calls: readonly { dialed_at: Date | null; ended_at: Date | null }[],
): number {
  return mostAtOnce(calls.map((c) => ({ start: c.dialed_at, end: c.ended_at })));
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
