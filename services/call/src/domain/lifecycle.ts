import { CALL_OUTCOMES, type CallOutcome, type CallStatus, type SipResponse } from '@voice/shared/contracts';
import type { CallResult, CarrierEvent } from './call-events';

/** A call's outcomes are its final states (docs/api-guide.md, "Calls"). */
export function isFinal(status: CallStatus): boolean {
  return (CALL_OUTCOMES as readonly CallStatus[]).includes(status);
}

/** A move of the state machine, with what it brings to the record. */
export type CallTransition =
  | { status: 'ringing' }
  | { status: 'in_progress'; answeredAt: Date; sip: SipResponse | null }
  | { status: CallOutcome; result: CallResult };

/**
 * The call state machine: initializing -> ringing -> in_progress -> an outcome, or to an outcome
 * straight from initializing or ringing. Only forward moves apply; anything else (a repeat, a
 * stale or late delivery, anything after the outcome) changes nothing: null.
 */
export function nextTransition(status: CallStatus, event: CarrierEvent): CallTransition | null {
  if (isFinal(status)) return null;
  switch (event.type) {
    case 'ringing':
      return status === 'initializing' ? { status: 'ringing' } : null;
    case 'answered':
      return status === 'in_progress'
        ? null
        : { status: 'in_progress', answeredAt: event.at, sip: event.sip };
    case 'ended':
      return { status: event.result.status, result: event.result };
  }
  return null;
}
