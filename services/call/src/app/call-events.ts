import {
  type Call,
  type CallEnded,
  type CallStatusChanged,
  EVENTS,
  enqueueEvent,
  eventSubject,
  type NewEvent,
  type TransactionSql,
} from '@voice/shared';
import type { z } from 'zod';
import { type CallRow, toCall } from '../db/call-rows';
import { isFinal } from '../domain/lifecycle';

/**
 * A call's events. Its end is CALL_ENDED, written to the outbox with the final transition (in the
 * same statement or transaction), so it exists if and only if the call ended and reaches its
 * durable consumers and live subscribers at least once. Every other transition is announced by a
 * live status event published once the transition committed, straight to the bus: its only readers
 * are live subscriptions, which cannot replay and drop anything older than what they have seen, and
 * through the outbox each cost a stored row, its claim and its deletion (two of every call's three
 * outbox rows). The cost of publishing after the commit: a process that dies between the two never
 * announces that transition; the subscriber sees the next one, and always the end.
 */
export interface TransitionEvents {
  /** The live status event of a transition that did not end the call. */
  live?: NewEvent<z.infer<typeof CallStatusChanged>>;
  /** The CALL_ENDED of the final transition (which also ends live subscribers' view of the call). */
  ended?: NewEvent<z.infer<typeof CallEnded>>;
}

/** The status event of `row`'s latest transition (from `previous`). */
export function statusEvent(
  row: CallRow,
  previous: CallRow['status'] | null,
): NewEvent<z.infer<typeof CallStatusChanged>> {
  return {
    subject: eventSubject(EVENTS.callStatusChanged, row.account_id, row.id),
    accountId: row.account_id,
    data: {
      call_id: row.id,
      status: row.status,
      previous_status: previous,
      campaign_id: row.campaign_id,
      agent_id: row.agent_id,
      sequence: row.sequence,
      call: toCall(row),
    },
  };
}

/** The one CALL_ENDED of a call: written with its final transition, so it exists iff the call ended. */
function endedEvent(row: CallRow, call: Call): NewEvent<z.infer<typeof CallEnded>> {
  return {
    subject: eventSubject(EVENTS.callEnded, row.account_id, row.id),
    accountId: row.account_id,
    // One id per call: a retried end can never publish a second CALL_ENDED.
    id: row.id,
    data: { call, sequence: row.sequence },
  };
}

/** The events of the transition to `row` (from `previous`): CALL_ENDED if final, else a live one. */
export function transitionEvents(row: CallRow, previous: CallRow['status']): TransitionEvents {
  return isFinal(row.status) ? { ended: endedEvent(row, toCall(row)) } : { live: statusEvent(row, previous) };
}

/**
 * Writes a transition's CALL_ENDED in its transaction; answers the live event to publish once the
 * transaction committed, if the transition has one.
 */
export async function recordTransitionEvents(
  tx: TransactionSql,
  row: CallRow,
  previous: CallRow['status'],
): Promise<TransitionEvents['live']> {
  const { live, ended } = transitionEvents(row, previous);
  if (ended) await enqueueEvent(tx, 'call', ended);
  return live;
}
