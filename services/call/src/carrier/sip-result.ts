import type { SipCallEnd, SipCallProgress } from '@voice/shared';
import { clockTime, costs } from './result';
import type {
  CallResult,
  CarrierEvent,
  DetailsCollectionResult,
  ReportedDetails,
  TranscriptLine,
} from './types';

/** A call without a conversation (unanswered, or carried by an instance older than the engine). */
const NOTHING_COLLECTED: DetailsCollectionResult = {
  status: 'none',
  score: 0,
  collected_details: [],
  collected_values: {},
};

/** What happened, for an instance older than the conversation engine: the agent spoke its flows. */
const OUTCOME_TEXT: Record<CallResult['status'], string> = {
  completed: 'was answered and the agent spoke its flows',
  no_answer: 'was not answered',
  busy: 'reached a busy line',
  voicemail: 'reached a voicemail box',
  failed: 'could not be completed',
};

/**
 * One to three sentences. The conversation engine's own summary when it held a conversation;
 * otherwise what happened, with the network's own words for it. A callee nobody could transcribe
 * is said, since their lines are then missing from the transcript.
 */
function summaryOf(end: SipCallEnd, sip: { code: number; reason: string } | null): string {
  const network = sip ? ` (SIP ${sip.code} ${sip.reason})` : end.detail ? ` (${end.detail})` : '';
  const own = end.conversation?.summary.trim();
  const what =
    own || `Call over a SIP trunk ${OUTCOME_TEXT[end.status]}${network}; no details were collected.`;
  const unheard = end.conversation?.recognition_unavailable?.trim();
  return unheard ? `${what} What the callee said could not be transcribed: ${unheard}` : what;
}

/** A line of the transcript before its clock time. */
interface TimedLine {
  line: Omit<TranscriptLine, 'timestamp'>;
  at: number;
}

/**
 * What was said and pressed, in the order it happened: the agent's lines as spoken (a line the
 * callee talked over, cut where the agent stopped), the callee's as the recogniser heard them
 * (with its confidence), and each pressed key as a user line "[DTMF] 5".
 */
function sipTranscript(end: SipCallEnd): TranscriptLine[] {
  const timed: TimedLine[] = [
    ...end.spoken.map((l) => ({
      line: { role: 'agent' as const, content: l.text },
      at: Date.parse(l.at),
    })),
    // A blank recognition (noise, a breath) says nothing worth a line.
    ...end.heard
      .filter((l) => l.text.trim() !== '')
      .map((l) => ({
        line: { role: 'user' as const, content: l.text, confidence: l.confidence },
        at: Date.parse(l.at),
      })),
    ...end.dtmf.map((k) => ({
      line: { role: 'user' as const, content: `[DTMF] ${k.digit}` },
      at: Date.parse(k.at),
    })),
  ];
  // Stable: lines stamped the same millisecond keep the order agent, callee, key.
  timed.sort((a, b) => a.at - b.at);
  return timed.map(({ line, at }) => ({ ...line, timestamp: clockTime(new Date(at)) }));
}

/**
 * What was collected: nothing without a conversation that completed; else the engine's values by
 * name, counted against the agent's collects where the call's record is at hand (the consumer of
 * SIP progress does not know the agent).
 */
function collectedOf(end: SipCallEnd): DetailsCollectionResult | ReportedDetails {
  if (end.status !== 'completed' || end.conversation === null) return NOTHING_COLLECTED;
  return { reported: end.conversation.collected };
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
    // Neutral without a conversation (unanswered, a voicemail message), as the record documents.
    sentiment: end.status === 'completed' ? (end.conversation?.sentiment ?? 'neutral') : 'neutral',
    call_summary: summaryOf(end, sip),
    call_end_reason: end.call_end_reason,
    ended_by: end.ended_by,
    details_collection: collectedOf(end),
    opted_out: end.conversation?.opted_out ?? false,
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
