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
 * Records a transition's event in the same transaction as the transition (outbox). It carries the
 * call record as it now is, so live subscribers (GraphQL, tRPC) need no read per event.
 */
export async function recordStatusEvent(
  tx: TransactionSql,
  row: CallRow,
  previous: CallRow['status'] | null,
): Promise<void> {
  await enqueueEvent(tx, 'call', statusEvent(row, previous));
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
export async function recordEndedEvent(tx: TransactionSql, row: CallRow, call: Call): Promise<void> {
  await enqueueEvent(tx, 'call', endedEvent(row, call));
}

export function endedEvent(row: CallRow, call: Call): NewEvent<{ call: Call }> {
  return {
    subject: eventSubject(EVENTS.callEnded, row.account_id, row.id),
    accountId: row.account_id,
    // One id per call: a retried end can never publish a second CALL_ENDED.
    id: row.id,
    data: { call },
  };
}

/** The events of the transition `previous` -> `row`: its status event, and CALL_ENDED if final. */
export function transitionEvents(row: CallRow, previous: CallRow['status']): NewEvent<unknown>[] {
  const events: NewEvent<unknown>[] = [statusEvent(row, previous)];
  if (isFinal(row.status)) events.push(endedEvent(row, toCall(row, null)));
  return events;
}
