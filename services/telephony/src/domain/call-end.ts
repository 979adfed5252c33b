import type { CallOutcome, SipCallEnd } from '@voice/shared/contracts';
import { type InviteEndCause, inviteOutcome, type SipEndReason } from './sip-outcome';

// How a SIP call ended, as the call record states it: outcome, reason and who ended it, from what
// the SIP leg reported and what our side decided. Pure: the dial path brings the facts.

/** Why our side ended (or never placed) the call, when it was our side. */
export type LocalEnd =
  /** The agent said its flows and hung up with BYE (a call without a conversation). */
  | 'finished'
  /** The conversation reached its end (everything collected, not interested, opted out ...). */
  | 'conversation_done'
  /** The callee stayed silent through the reprompt: the agent said goodbye. */
  | 'silence'
  /** The conversation reached its maximum duration. */
  | 'max_duration'
  /** An answering machine picked up; the agent left its message after the beep. */
  | 'voicemail'
  /** TELEPHONY.hangup asked for it. */
  | 'hangup'
  /** The service is stopping: live calls end with it. */
  | 'shutdown'
  /** No RTP arrived for the media timeout after the answer. */
  | 'no_media'
  /** The answer carried no usable SDP. */
  | 'bad_sdp'
  /** The trunk carries its max_concurrent_calls already: the call was not dialed. */
  | 'at_capacity'
  /** Dialing could not begin (no RTP port, unusable trunk settings, no calls-per-second slot in time). */
  | 'setup_failed'
  /** The instance carrying the call died; another instance ended it. */
  | 'instance_lost';

export interface EndFacts {
  answered: boolean;
  /** How the SIP leg ended; null when no INVITE was sent. */
  leg: { cause: InviteEndCause; sipCode: number | null; by: 'remote' | 'local' | 'timeout' } | null;
  local: LocalEnd | null;
  /** Answering-machine detection said a machine picked up. */
  machine?: boolean;
}

export type EndDecision = Pick<SipCallEnd, 'status' | 'call_end_reason' | 'ended_by'>;

/** The call record's reason for each way a SIP call fails to connect. */
const REASONS: Record<Exclude<SipEndReason, 'cancelled'>, SipCallEnd['call_end_reason']> = {
  busy: 'busy',
  no_answer: 'no_answer',
  invalid_number: 'invalid_number',
  declined: 'declined',
  carrier_error: 'carrier_error',
};

const FAILED_BY_CARRIER: EndDecision = {
  status: 'failed',
  call_end_reason: 'carrier_error',
  ended_by: 'carrier',
};
const FAILED_BY_US: EndDecision = { status: 'failed', call_end_reason: 'carrier_error', ended_by: 'system' };
const CANCELLED: EndDecision = { status: 'no_answer', call_end_reason: 'cancelled', ended_by: 'system' };

export function decideEnd(facts: EndFacts): EndDecision {
  switch (facts.local) {
    case 'no_media':
    case 'bad_sdp':
      return FAILED_BY_CARRIER;
    case 'at_capacity':
    case 'setup_failed':
      return FAILED_BY_US;
    default:
      return facts.answered ? answeredEnd(facts) : unansweredEnd(facts);
  }
}

/** A connected call keeps `completed` (a machine's, `voicemail`); the reason says whose BYE ended it. */
function answeredEnd(facts: EndFacts): EndDecision {
  if (facts.machine && facts.local !== 'instance_lost') {
    const byUs = facts.local !== null || facts.leg?.by !== 'remote';
    return { status: 'voicemail', call_end_reason: 'voicemail_detected', ended_by: byUs ? 'agent' : 'user' };
  }
  const completed = (call_end_reason: SipCallEnd['call_end_reason'], ended_by: SipCallEnd['ended_by']) => ({
    status: 'completed' as CallOutcome,
    call_end_reason,
    ended_by,
  });
  switch (facts.local) {
    case 'instance_lost':
      // Cut off by our own failure: it was connected (duration counts), and the reason says why it stopped.
      return completed('carrier_error', 'system');
    case 'hangup':
    case 'shutdown':
      return completed('agent_hung_up', 'system');
    case 'finished':
    case 'silence':
      return completed('agent_hung_up', 'agent');
    case 'conversation_done':
    case 'voicemail':
      return completed('conversation_completed', 'agent');
    case 'max_duration':
      return completed('timeout', 'system');
    default:
      return facts.leg?.by === 'remote' && facts.leg.cause === 'response'
        ? completed('customer_hung_up', 'user')
        : completed('agent_hung_up', 'agent');
  }
}

function unansweredEnd(facts: EndFacts): EndDecision {
  if (facts.local === 'instance_lost') return FAILED_BY_US;
  if (facts.local === 'hangup' || facts.local === 'shutdown') return CANCELLED;
  if (!facts.leg) return FAILED_BY_US;
  const outcome = inviteOutcome({ cause: facts.leg.cause, sipCode: facts.leg.sipCode });
  // A 2xx here was never taken as an answer (it crossed our CANCEL): nothing was connected.
  if (outcome.status === 'answered') return FAILED_BY_CARRIER;
  if (outcome.status === 'cancelled') return CANCELLED;
  return {
    status: outcome.status,
    call_end_reason: REASONS[outcome.reason as keyof typeof REASONS],
    ended_by: 'carrier',
  };
}
