import {
  type Call,
  type CallStatusChanged,
  EVENTS,
  enqueueEvent,
  eventSubject,
  type NewEvent,
  type TransactionSql,
} from '@voice/shared';
import type { z } from 'zod';
import { type CallRow, isFinal, toCall } from '../db/call-rows';

/**
 * Records a transition's events in the same transaction as the transition (outbox): its status
 * event, which carries the call record as it now is (so live subscribers need no read per event),
 * and, on the final transition, the call's one CALL_ENDED.
 */
export async function recordTransitionEvents(
  tx: TransactionSql,
  row: CallRow,
  previous: CallRow['status'],
): Promise<void> {
  const [status, ended] = transitionEvents(row, previous);
  await enqueueEvent(tx, 'call', status);
  if (ended) await enqueueEvent(tx, 'call', ended);
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
      call: toCall(row, null),
    },
  };
}

/** The one CALL_ENDED of a call: written with its final transition, so it exists iff the call ended. */
function endedEvent(row: CallRow, call: Call): NewEvent<{ call: Call }> {
  return {
    subject: eventSubject(EVENTS.callEnded, row.account_id, row.id),
    accountId: row.account_id,
    // One id per call: a retried end can never publish a second CALL_ENDED.
    id: row.id,
    data: { call },
  };
}

/** The events of the transition `previous` -> `row`: its status event, and CALL_ENDED if final. */
export function transitionEvents(
  row: CallRow,
  previous: CallRow['status'],
): TransitionEvents<NewEvent<unknown>> {
  const status: NewEvent<unknown> = statusEvent(row, previous);
  return isFinal(row.status) ? [status, endedEvent(row, toCall(row, null))] : [status];
}

/** A transition's status event, then its CALL_ENDED when it is the final one. */
export type TransitionEvents<E> = [status: E, ended?: E];
