import type { CallOutcome } from '@voice/shared/contracts';

// How a SIP INVITE ended, decided as data (docs/telephony.md, "SIP signalling"). The table follows
// the platform's decisions on SIP trunks: busy, no answer, invalid number, declined, carrier error.

/** Why the INVITE ended, as the user agent saw it. */
export type InviteEndCause =
  /** A final response from the far end (2xx included). */
  | 'response'
  /** We sent CANCEL because nobody answered within the ring timeout. */
  | 'ring_timeout'
  /** We sent CANCEL because our side hung up before the answer. */
  | 'cancelled'
  /** No response at all to the INVITE (transaction timeout). */
  | 'no_response'
  /** The trunk could not be reached (connection refused or reset, unresolvable host). */
  | 'transport_error';

/** Reasons a SIP call can fail or not connect; `declined` is new with SIP trunks (603). */
export type SipEndReason =
  | 'busy'
  | 'no_answer'
  | 'invalid_number'
  | 'declined'
  | 'carrier_error'
  | 'cancelled';

export type InviteOutcome =
  | { status: 'answered' }
  | { status: Exclude<CallOutcome, 'completed' | 'voicemail'> | 'cancelled'; reason: SipEndReason };

type Decision = Exclude<InviteOutcome, { status: 'answered' }>;

const BUSY: Decision = { status: 'busy', reason: 'busy' };
const NO_ANSWER: Decision = { status: 'no_answer', reason: 'no_answer' };
const INVALID_NUMBER: Decision = { status: 'failed', reason: 'invalid_number' };
const DECLINED: Decision = { status: 'failed', reason: 'declined' };
const CARRIER_ERROR: Decision = { status: 'failed', reason: 'carrier_error' };

/** Final non-2xx codes with their own meaning; any other failure code is a carrier error. */
export const SIP_FINAL_CODE_OUTCOMES: Readonly<Record<number, Decision>> = {
  486: BUSY,
  600: BUSY,
  408: NO_ANSWER,
  480: NO_ANSWER,
  404: INVALID_NUMBER,
  484: INVALID_NUMBER,
  604: INVALID_NUMBER,
  603: DECLINED,
};

/**
 * The outcome of an INVITE: what our own CANCEL or a silent far end means comes first (a 487 or a
 * 200 that crossed our CANCEL does not change it), then the far end's final code.
 */
export function inviteOutcome(end: { cause: InviteEndCause; sipCode: number | null }): InviteOutcome {
  switch (end.cause) {
    case 'ring_timeout':
      return NO_ANSWER;
    case 'cancelled':
      return { status: 'cancelled', reason: 'cancelled' };
    case 'no_response':
    case 'transport_error':
      return CARRIER_ERROR;
    case 'response':
      return responseOutcome(end.sipCode);
  }
}

function responseOutcome(code: number | null): InviteOutcome {
  if (code === null) return CARRIER_ERROR;
  if (code >= 200 && code < 300) return { status: 'answered' };
  return SIP_FINAL_CODE_OUTCOMES[code] ?? CARRIER_ERROR;
}
