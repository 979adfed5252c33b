import type { SipCallEnd, SipCallProgress } from '@voice/shared';
import { clockTime, costs } from './result';
import type { CallResult, CarrierEvent, DetailsCollectionResult, TranscriptLine } from './types';

/** Nothing is collected over SIP yet: the agent speaks its flows, nobody converses with it. */
const NOTHING_COLLECTED: DetailsCollectionResult = {
  status: 'none',
  score: 0,
  collected_details: [],
  collected_values: {},
};

const OUTCOME_TEXT: Record<CallResult['status'], string> = {
  completed: 'was answered and the agent spoke its flows',
  no_answer: 'was not answered',
  busy: 'reached a busy line',
  voicemail: 'reached a voicemail box',
  failed: 'could not be completed',
};

/** One or two sentences: what happened, with the network's own words for it. */
function summaryOf(end: SipCallEnd, sip: { code: number; reason: string } | null): string {
  const network = sip ? ` (SIP ${sip.code} ${sip.reason})` : end.detail ? ` (${end.detail})` : '';
  return `Call over a SIP trunk ${OUTCOME_TEXT[end.status]}${network}; no details were collected.`;
}

/**
 * The agent's lines and the keys the callee pressed, in the order they happened. What the callee
 * said is audio in the recording, not yet text; a pressed key is a user line "[DTMF] 5".
 */
function sipTranscript(end: SipCallEnd): TranscriptLine[] {
  const lines = [
    ...end.spoken.map((line) => ({ role: 'agent' as const, content: line.text, at: line.at })),
    ...end.dtmf.map((key) => ({ role: 'user' as const, content: `[DTMF] ${key.digit}`, at: key.at })),
  ];
  // Stable: a line and a key stamped the same millisecond keep agent-first order.
  lines.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return lines.map((line) => ({
    role: line.role,
    content: line.content,
    timestamp: clockTime(new Date(line.at)),
  }));
}

/** How a SIP call ended, as the call record states it: costs follow the connected time. */
export function sipCallResult(end: SipCallEnd, sip: { code: number; reason: string } | null): CallResult {
  // Billed per started second, as carriers bill (and as the record's integer duration says).
  const duration = Math.ceil(end.duration_seconds);
  const price = costs(duration);
  return {
    status: end.status,
    answered_at: end.answered_at ? new Date(end.answered_at) : null,
    ended_at: new Date(end.ended_at),
    duration_seconds: duration,
    transcript: sipTranscript(end),
    sentiment: 'neutral',
    call_summary: summaryOf(end, sip),
    call_end_reason: end.call_end_reason,
    ended_by: end.ended_by,
    details_collection: NOTHING_COLLECTED,
    ai_cost: price.ai_cost,
    telephony_cost: price.telephony_cost,
    total_cost: price.total_cost,
    sip,
    recorded: end.recorded,
  };
}

/**
 * One step reported by the telephony service as the call's state machine reads it; undefined for
 * an `ended` step without its `end` (outside the contract's intent: nothing to apply).
 */
export function sipCarrierEvent(progress: SipCallProgress): CarrierEvent | undefined {
  const at = new Date(progress.at);
  const sip =
    progress.sip_code === null ? null : { code: progress.sip_code, reason: progress.sip_reason ?? '' };
  switch (progress.type) {
    case 'ringing':
      return { type: 'ringing', at };
    case 'answered':
      return { type: 'answered', at, sip };
    case 'ended':
      return progress.end ? { type: 'ended', at, result: sipCallResult(progress.end, sip) } : undefined;
  }
  return undefined;
}

/** The end the call service writes itself when the telephony service could not take the call. */
export function undialedEnd(at: Date, detail: string): SipCallEnd {
  return {
    status: 'failed',
    call_end_reason: 'carrier_error',
    ended_by: 'system',
    answered_at: null,
    ended_at: at.toISOString(),
    duration_seconds: 0,
    spoken: [],
    heard: [],
    dtmf: [],
    recorded: false,
    detail: detail.slice(0, 500),
    conversation: null,
  };
}
