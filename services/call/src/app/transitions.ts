import type { CarrierEvent } from '../carrier/index';
import type { CallChanges } from '../db/call-repository';
import { type CallRow, isFinal } from '../db/call-rows';

type Transition = CallChanges & { status: CallRow['status'] };

/**
 * The call state machine (docs/api-guide.md, "Calls"): initializing -> ringing -> in_progress -> outcome,
 * or to an outcome from initializing/ringing. Only forward moves apply; anything else is a repeat
 * or a stale delivery and changes nothing (null).
 */
export function transitionFor(row: CallRow, event: CarrierEvent): Transition | null {
  if (isFinal(row.status)) return null;
  switch (event.type) {
    case 'ringing':
      return row.status === 'initializing' ? { status: 'ringing' } : null;
    case 'answered':
      return row.status === 'in_progress'
        ? null
        : {
            status: 'in_progress',
            answered_at: event.at,
            sip_code: event.sip?.code ?? null,
            sip_reason: event.sip?.reason ?? null,
          };
    case 'ended': {
      const result = event.result;
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
        details_collection: result.details_collection,
        ai_cost: String(result.ai_cost),
        telephony_cost: String(result.telephony_cost),
        total_cost: String(result.total_cost),
        // A network that reports none keeps what the answer brought.
        ...(result.sip ? { sip_code: result.sip.code, sip_reason: result.sip.reason } : {}),
        owner: null,
      };
    }
  }
  return null;
}
