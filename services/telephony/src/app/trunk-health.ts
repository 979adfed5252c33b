import { type Logger, PollLoop, type Sql } from '@voice/shared';
import { type DueTrunk, trunkHealthRepository } from '../db/trunk-health-repository';
import type { SipUserAgent } from '../sip';

export interface TrunkKeepAliveOptions {
  sql: Sql;
  log: Logger;
  ua: SipUserAgent;
  /** Between two pings of one trunk (default 30 s). */
  intervalMs: number;
  /** Pings in flight at once from this instance (default 8). */
  concurrency: number;
}

const CLAIM_BATCH = 100;

/**
 * OPTIONS keep-alive to every trunk, each about every `intervalMs`, shared between replicas through
 * the trunk_health table; the latest result of each trunk is kept there (trunkHealthRepository.latest).
 */
export function startTrunkKeepAlive(options: TrunkKeepAliveOptions): { stop(): Promise<void> } {
  const { sql, log, ua, concurrency } = options;
  // A stop does not wait out a ping to a trunk that does not answer (its transaction timeout, 32 s
  // by default, past a container's grace period): the ping is dropped unrecorded, and the user
  // agent's close, next in the stop, ends its transaction.
  let stopping = (): void => {};
  const stopped = new Promise<null>((resolve) => {
    stopping = () => resolve(null);
  });
  const ping = async (trunk: DueTrunk) => {
    let result: { ok: boolean; latencyMs: number; sipCode: number | null; error: string | null };
    try {
      const answer = await Promise.race([ua.options(trunk), stopped]);
      if (answer === null) return;
      result = answer.ok
        ? { ok: true, latencyMs: answer.latencyMs, sipCode: answer.sipCode, error: null }
        : { ok: false, latencyMs: answer.latencyMs, sipCode: answer.sipCode, error: answer.error };
    } catch (error) {
      result = { ok: false, latencyMs: 0, sipCode: null, error: (error as Error).message.slice(0, 300) };
    }
    await trunkHealthRepository.record(sql, trunk.id, result);
  };
  const loop = new PollLoop({
    // A round checks every trunk it claimed, `concurrency` at a time.
    round: async () => {
      const due = await trunkHealthRepository.claimDue(sql, CLAIM_BATCH, options.intervalMs);
      const workers = Array.from({ length: Math.min(concurrency, due.length) }, async () => {
        for (let next = due.shift(); next && !loop.isStopped; next = due.shift()) await ping(next);
      });
      await Promise.all(workers);
    },
    intervalMs: Math.max(50, Math.min(options.intervalMs / 3, 5_000)),
    onError: (error) => log.warn({ err: error }, 'telephony: trunk keep-alive round failed'),
  });
  loop.start();
  return {
    stop: async () => {
      stopping();
      await loop.stop();
    },
  };
}
