import { createHash } from 'node:crypto';
import {
  type Call,
  type CallEnded,
  type CallProgressed,
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
 *
 * The ringing and the answer are also written to the outbox as durable CALL_PROGRESS events (their
 * reader, account webhook endpoints, must hear of each exactly once, which a live publish cannot
 * promise): the price of two outbox rows per answered call that the live events avoid.
 */
export interface TransitionEvents {
  /** The live status event of a transition that did not end the call. */
  live?: NewEvent<z.infer<typeof CallStatusChanged>>;
  /**
   * The durable event written with the transition: CALL_ENDED for the final one (which also ends
   * live subscribers' view of the call), CALL_PROGRESS for ringing and the answer.
   */
  durable?: NewEvent<unknown>;
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

/** An id made of the call's and the status's: a call rings (or is answered) once, so its event is one. */
function progressId(callId: string, status: string): string {
  const hex = createHash('sha256').update(`${callId}/${status}`).digest('hex');
  // Laid out as a version-5-style UUID (variant bits set), which the event contracts require.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The durable CALL_PROGRESS of a call's ringing or answer; undefined for any other transition. */
function progressEvent(row: CallRow): NewEvent<z.infer<typeof CallProgressed>> | undefined {
  if (row.status !== 'ringing' && row.status !== 'in_progress') return undefined;
  return {
    subject: eventSubject(EVENTS.callProgressed, row.account_id, row.id),
    accountId: row.account_id,
    id: progressId(row.id, row.status),
    data: { status: row.status, sequence: row.sequence, call: toCall(row) },
  };
}

/**
 * The events of the transition to `row` (from `previous`): CALL_ENDED if final, else a live one
 * and, for ringing and the answer, a durable CALL_PROGRESS.
 */
export function transitionEvents(row: CallRow, previous: CallRow['status']): TransitionEvents {
  if (isFinal(row.status)) return { durable: endedEvent(row, toCall(row)) };
  const progress = progressEvent(row);
  return { live: statusEvent(row, previous), ...(progress ? { durable: progress } : {}) };
}

/**
 * Writes a transition's durable event in its transaction; answers the live event to publish once
 * the transaction committed, if the transition has one.
 */
export async function recordTransitionEvents(
  tx: TransactionSql,
  row: CallRow,
  previous: CallRow['status'],
): Promise<TransitionEvents['live']> {
  const { live, durable } = transitionEvents(row, previous);
  if (durable) await enqueueEvent(tx, 'call', durable);
  return live;
}
