import { reportedDetails } from '../carrier/index';
import type { CallChanges } from '../db/call-repository';
import type { CallRow } from '../db/call-rows';
import type { CarrierEvent } from '../domain/call-events';
import { nextTransition } from '../domain/lifecycle';

type Transition = CallChanges & { status: CallRow['status'] };

/**
 * The state machine's move for `event` (domain/lifecycle.ts) as the changes to the call's row; null:
 * none. Details a network reported by name are counted against the agent the call keeps.
 */
export function transitionFor(
  row: Pick<CallRow, 'status' | 'agent_snapshot'>,
  event: CarrierEvent,
): Transition | null {
  const next = nextTransition(row.status, event);
  if (!next) return null;
  if (next.status === 'ringing') return { status: 'ringing' };
  if (next.status === 'in_progress') {
    return {
      status: 'in_progress',
      answered_at: next.answeredAt,
      sip_code: next.sip?.code ?? null,
      sip_reason: next.sip?.reason ?? null,
    };
  }
  const { result } = next;
  return {
    status: result.status,
    answered_at: result.answered_at,
    ended_at: result.ended_at,
    duration_seconds: result.duration_seconds,
    transcript: result.transcript,
    sentiment: result.sentiment,
    call_summary: result.call_summary,
    call_end_reason: result.call_end_reason,
    ended_by: result.ended_by,
    details_collection:
      'reported' in result.details_collection
        ? reportedDetails(row.agent_snapshot.collects, result.details_collection.reported)
        : result.details_collection,
    opted_out: result.opted_out,
    ai_cost: String(result.ai_cost),
    telephony_cost: String(result.telephony_cost),
    total_cost: String(result.total_cost),
    // A network that reports none keeps what the answer brought.
    ...(result.sip ? { sip_code: result.sip.code, sip_reason: result.sip.reason } : {}),
    ...(result.recorded === undefined ? {} : { recorded: result.recorded }),
    // Over: no instance drives it any more.
    owner: null,
  };
}
