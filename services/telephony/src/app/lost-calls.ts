import { type Logger, PollLoop, type SipCallEnd, type Sql } from '@voice/shared';
import { callRepository, type OrphanRow } from '../db/call-repository';
import { decideEnd } from '../domain/call-end';

/**
 * Ends a call whose instance died: its media died with it, so it is over, never redialed. It ends
 * at the last moment its instance was known alive; unanswered it failed (carrier_error), answered
 * it keeps `completed` with the reason carrier_error. False when it had ended meanwhile.
 */
export async function endLostCall(sql: Sql, call: OrphanRow): Promise<boolean> {
  const answered = call.state === 'answered' && call.answered_at !== null;
  const endedAt = new Date(Math.max(call.last_seen.getTime(), call.answered_at?.getTime() ?? 0));
  const end: SipCallEnd = {
    ...decideEnd({ answered, leg: null, local: 'instance_lost' }),
    answered_at: answered ? call.answered_at!.toISOString() : null,
    ended_at: endedAt.toISOString(),
    duration_seconds: answered ? (endedAt.getTime() - call.answered_at!.getTime()) / 1000 : 0,
    spoken: [],
    heard: [],
    dtmf: [],
    recorded: false,
    conversation: null,
    detail: `the telephony instance carrying the call (${call.instance}) stopped`.slice(0, 500),
  };
  return callRepository.progress(sql, call, {
    type: 'ended',
    at: new Date().toISOString(),
    sip_code: null,
    sip_reason: null,
    end,
  });
}

export interface InstanceKeeperOptions {
  sql: Sql;
  log: Logger;
  instance: string;
  /** How long this instance's lease lasts without renewal; renewed every third of it. */
  leaseMs: number;
}

/**
 * Keeps this instance's lease and ends the calls of instances whose lease lapsed (a crash, a kill,
 * a lost network), on whichever instance sees them first: the conditional end write lets only one
 * of them publish the `ended` event.
 */
export async function startInstanceKeeper(
  options: InstanceKeeperOptions,
): Promise<{ stop(): Promise<void> }> {
  const { sql, log, instance, leaseMs } = options;
  await callRepository.renewLease(sql, instance, leaseMs);
  const loop = new PollLoop({
    round: async () => {
      await callRepository.renewLease(sql, instance, leaseMs);
      for (const call of await callRepository.orphans(sql, instance, 100)) {
        if (await endLostCall(sql, call)) {
          log.info(
            { call_id: call.call_id, instance: call.instance },
            'telephony: ended a call whose instance died',
          );
        }
      }
      await callRepository.forgetDeadInstances(sql);
    },
    intervalMs: Math.max(100, leaseMs / 3),
    onError: (error) => log.warn({ err: error }, 'telephony: instance keeper round failed'),
  });
  loop.start();
  return loop;
}
