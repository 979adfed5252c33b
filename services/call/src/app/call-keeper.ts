import type { Logger, Sql } from '@voice/shared';
import type { CarrierStage } from '../carrier/index';
import { callRepository } from '../db/call-repository';
import type { CallsApp } from './calls';

export interface KeeperOptions {
  sql: Sql;
  log: Logger;
  calls: CallsApp;
  instanceId: string;
  leaseSeconds: number;
  /**
   * Wall-clock age after which a live call is stuck: its longest plausible run plus a grace, by
   * carrier (a SIP call is real and may run far longer than a simulated one).
   */
  stuckAfterMs: { simulated: number; sip: number };
}

/**
 * How often the keeper also looks for calls whose driver has no lease row at all (reading every
 * live call) and forgets instances gone for good (their calls all taken over or ended).
 */
const SWEEP_EVERY_MS = 60_000;

/**
 * Keeps every live call driven by exactly one instance: renews this instance's lease, takes over
 * calls whose driver is gone (after a crash, or released on a clean stop) and resumes them where
 * they were, and ends calls that are stuck. Runs as the call service's background work.
 */
export function startCallKeeper(options: KeeperOptions): { stop(): Promise<void> } {
  const { sql, log, calls, instanceId, leaseSeconds } = options;
  let running = true;
  let pass: Promise<void> = Promise.resolve();

  const takeOver = async (sweep: boolean) => {
    const orphans = await callRepository.claimOrphans(sql, instanceId, leaseSeconds, 100, sweep);
    for (const row of orphans) {
      log.info({ call_id: row.id, status: row.status }, 'resuming a call whose driver is gone');
      calls.drive(row, row.status as CarrierStage);
    }
  };
  const reap = async () => {
    const now = Date.now();
    const cutoff = {
      simulated: new Date(now - options.stuckAfterMs.simulated),
      sip: new Date(now - options.stuckAfterMs.sip),
    };
    for (const { id } of await callRepository.stuck(sql, cutoff, 100)) {
      await calls.endStuck(id);
    }
  };
  let sweptAt = 0;
  const tick = async () => {
    try {
      await callRepository.renewLease(sql, instanceId, leaseSeconds);
      const sweep = Date.now() - sweptAt >= SWEEP_EVERY_MS;
      if (sweep) sweptAt = Date.now();
      await takeOver(sweep);
      await reap();
      await calls.forgetEnded();
      if (sweep) await callRepository.forgetGoneInstances(sql, leaseSeconds);
    } catch (error) {
      log.warn({ err: error }, 'call keeper pass failed');
    }
  };

  pass = tick();
  const timer = setInterval(
    () => {
      if (running) pass = pass.then(tick);
    },
    Math.max(250, (leaseSeconds * 1000) / 3),
  );
  return {
    async stop() {
      running = false;
      clearInterval(timer);
      await pass;
    },
  };
}
