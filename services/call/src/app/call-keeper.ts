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
  /** Wall-clock age after which a live call is stuck: its longest plausible run plus a grace. */
  stuckAfterMs: number;
}

/** How often instances gone for good (their calls all taken over) are forgotten. */
const FORGET_EVERY_MS = 60_000;

/**
 * Keeps every live call driven by exactly one instance: renews this instance's lease, takes over
 * calls whose driver is gone (after a crash, or released on a clean stop) and resumes them where
 * they were, and ends calls that are stuck. Runs as the call service's background work.
 */
export function startCallKeeper(options: KeeperOptions): { stop(): Promise<void> } {
  const { sql, log, calls, instanceId, leaseSeconds } = options;
  let running = true;
  let pass: Promise<void> = Promise.resolve();

  const takeOver = async () => {
    const orphans = await callRepository.claimOrphans(sql, instanceId, leaseSeconds, 100);
    for (const row of orphans) {
      log.info({ call_id: row.id, status: row.status }, 'resuming a call whose driver is gone');
      calls.drive(row, row.status as CarrierStage);
    }
  };
  const reap = async () => {
    for (const { id } of await callRepository.stuck(sql, new Date(Date.now() - options.stuckAfterMs), 100)) {
      await calls.endStuck(id);
    }
  };
  let forgotAt = 0;
  const tick = async () => {
    try {
      await callRepository.renewLease(sql, instanceId, leaseSeconds);
      await takeOver();
      await reap();
      if (Date.now() - forgotAt >= FORGET_EVERY_MS) {
        forgotAt = Date.now();
        await callRepository.forgetGoneInstances(sql, leaseSeconds);
      }
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
