import {
  type CallOutcome,
  SIMULATED_SIP_RESPONSES,
  SIP_REQUEST_TERMINATED,
  type SipResponse,
  simulatedOptOut,
  simulatedOutcomeFor,
} from '@voice/shared';
import { type ContactInfo, contactFrom } from './contact';
import { type Conversation, converse, leaveMessage, type Mood } from './conversation';
import { createRng, type Rng } from './prng';
import { connectedSeconds, costs, detailsOf, sentimentOf, summaryOf, transcriptOf } from './result';
import type {
  CallEndReasonValue,
  CallResult,
  DetailsCollectionResult,
  DialRequest,
  EndedByValue,
} from './types';

/** No plan lasts longer than this from the start of dialing (simulated seconds). */
export const MAX_CALL_SECONDS = 600;

/**
 * Simulated timings in ms. Ringing starts after the usual post-dial delay. A failed call never
 * rings (it could not be connected). Voicemail: the machine picks up after a long ring, plays its
 * greeting and beep, then the agent leaves a message.
 */
export const TIMINGS = {
  postDialMs: [500, 2000],
  ringBeforeAnswerMs: [3000, 12_000],
  ringUntilNoAnswerMs: [25_000, 35_000],
  busyAfterMs: [1000, 3000],
  failAfterMs: [1000, 2000],
  ringBeforeVoicemailMs: [15_000, 25_000],
  voicemailGreetingMs: [4000, 8000],
  hangUpAfterLastWordMs: [500, 1500],
} as const satisfies Record<string, readonly [number, number]>;

/** Test numbers, as a carrier's: the last four digits of the dialed number pick the outcome. */
export const outcomeFor: (to: string) => CallOutcome = simulatedOutcomeFor;

/** A simulated call's result: the carrier knows the agent, so its details are counted already. */
export type PlannedResult = CallResult & { details_collection: DetailsCollectionResult };

export interface PlannedEvent {
  type: 'ringing' | 'answered' | 'ended';
  atMs: number;
}

/**
 * Everything about one simulated call. Offsets (`...Ms`) are simulated ms from `request.startedAt`;
 * the call plays back at `timeScale` (SIM_TIME_SCALE), so an offset falls due at the wall-clock
 * time `wallTime` gives, and the result's times, duration and costs are those wall-clock ones.
 */
export interface CallPlan {
  request: DialRequest;
  timeScale: number;
  contact: ContactInfo;
  outcome: CallOutcome;
  mood: Mood | null;
  ringingAtMs: number | null;
  /**
   * When the line was picked up: by the contact (completed) or by the voicemail machine. Duration,
   * transcript and costs count from here. Only a human answer is an 'answered' event: the state machine
   * moves a voicemail call from ringing straight to its outcome, never through in_progress.
   */
  answeredAtMs: number | null;
  endedAtMs: number;
  conversation: Conversation | null;
  events: PlannedEvent[];
  result: PlannedResult;
}

/** The wall-clock moment a simulated offset falls due (whole ms, never after it is due). */
export function wallTime(plan: Pick<CallPlan, 'request' | 'timeScale'>, atMs: number): Date {
  return new Date(Math.floor(plan.request.startedAt.getTime() + atMs * plan.timeScale));
}

/** A wall-clock span in words, for summaries. */
function secondsText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 1 ? 'less than a second' : `${seconds} second${seconds === 1 ? '' : 's'}`;
}

const span = (rng: Rng, [min, max]: readonly [number, number]): number => rng.int(min, max);
/** Hang-up lands on a whole second after the answer, so duration_seconds is exact, not rounded. */
const alignEnd = (answeredAtMs: number, endMs: number): number =>
  answeredAtMs + Math.ceil((endMs - answeredAtMs) / 1000) * 1000;

function pickMood(rng: Rng): Mood {
  const r = rng.next();
  return r < 0.5 ? 'smooth' : r < 0.7 ? 'brief' : r < 0.88 ? 'objection' : 'reluctant';
}

const ENDINGS: Record<CallOutcome, { reason: CallEndReasonValue; by: EndedByValue }> = {
  completed: { reason: 'conversation_completed', by: 'agent' },
  no_answer: { reason: 'no_answer', by: 'carrier' },
  busy: { reason: 'busy', by: 'carrier' },
  failed: { reason: 'carrier_error', by: 'carrier' },
  voicemail: { reason: 'voicemail_detected', by: 'agent' },
};

/**
 * Deterministic per request and pace: the same call always rings, answers, says and costs the
 * same. At `timeScale` below 1 the call is compressed in wall time, and so are its duration and
 * costs (timestamps and durations are always wall-clock ones).
 */
export function planCall(request: DialRequest, timeScale = 1): CallPlan {
  // Seeded by the call id alone so that the timeline survives a restart that re-plans the call.
  const rng = createRng(`carrier:${request.callId}`);
  const contact = contactFrom(request.metadata);
  const outcome = outcomeFor(request.to);
  const limitMs = MAX_CALL_SECONDS * 1000 - TIMINGS.hangUpAfterLastWordMs[1] - 1000;
  const wallMs = (fromMs: number, toMs: number) =>
    wallTime({ request, timeScale }, toMs).getTime() - wallTime({ request, timeScale }, fromMs).getTime();
  let ringingAtMs: number | null = null;
  let answeredAtMs: number | null = null;
  let conversation: Conversation | null = null;
  let mood: Mood | null = null;
  let endedAtMs: number;
  let how = '';

  if (outcome === 'failed') {
    endedAtMs = span(rng, TIMINGS.failAfterMs);
    how = 'could not be connected (carrier error)';
  } else {
    ringingAtMs = span(rng, TIMINGS.postDialMs);
    if (outcome === 'no_answer') {
      endedAtMs = ringingAtMs + span(rng, TIMINGS.ringUntilNoAnswerMs);
      how = `rang for ${secondsText(wallMs(ringingAtMs, endedAtMs))} and was not answered`;
    } else if (outcome === 'busy') {
      endedAtMs = ringingAtMs + span(rng, TIMINGS.busyAfterMs);
      how = 'found the line busy';
    } else if (outcome === 'voicemail') {
      answeredAtMs = ringingAtMs + span(rng, TIMINGS.ringBeforeVoicemailMs);
      const messageAt = answeredAtMs + span(rng, TIMINGS.voicemailGreetingMs) + 500;
      const message = leaveMessage(request.agent, contact, request.from, rng, messageAt);
      conversation = { ...message, items: [], declined: [], objectionAtMs: null, optOutAtMs: null };
      endedAtMs = alignEnd(answeredAtMs, message.lastSpeechMs + span(rng, TIMINGS.hangUpAfterLastWordMs));
      const seconds = Math.ceil(wallMs(answeredAtMs, endedAtMs) / 1000);
      how = `reached voicemail, and the agent left a ${seconds}-second message`;
    } else {
      answeredAtMs = ringingAtMs + span(rng, TIMINGS.ringBeforeAnswerMs);
      // The opt-out test number's contact asks not to be called again; anyone else has a mood.
      mood = simulatedOptOut(request.to) ? 'opting_out' : pickMood(rng);
      const startMs = answeredAtMs + rng.int(500, 1200);
      conversation = converse({ ...request, contact, mood, rng, startMs, limitMs });
      endedAtMs = alignEnd(
        answeredAtMs,
        conversation.lastSpeechMs + span(rng, TIMINGS.hangUpAfterLastWordMs),
      );
    }
  }

  const events: PlannedEvent[] = [];
  if (ringingAtMs !== null) events.push({ type: 'ringing', atMs: ringingAtMs });
  if (outcome === 'completed' && answeredAtMs !== null) events.push({ type: 'answered', atMs: answeredAtMs });
  events.push({ type: 'ended', atMs: endedAtMs });

  const plan = {
    request,
    timeScale,
    contact,
    outcome,
    mood,
    ringingAtMs,
    answeredAtMs,
    endedAtMs,
    conversation,
    events,
  };
  const ending = ENDINGS[outcome];
  return {
    ...plan,
    result: buildResult(plan, {
      atMs: endedAtMs,
      reason: ending.reason,
      by: ending.by,
      how,
      cancelled: false,
      sip: SIMULATED_SIP_RESPONSES[outcome],
    }),
  };
}

interface Ending {
  atMs: number;
  reason: CallEndReasonValue;
  by: EndedByValue;
  how: string;
  cancelled: boolean;
  sip: SipResponse;
}

/** The record of the plan's call as it stood at `end.atMs`: lines and items up to then. */
function buildResult(plan: Omit<CallPlan, 'result'>, end: Ending, status = plan.outcome): PlannedResult {
  const { request, conversation, answeredAtMs } = plan;
  const { agent } = request;
  const wallAt = (atMs: number) => wallTime(plan, atMs);
  const answered = answeredAtMs !== null && conversation !== null && status === plan.outcome;
  const upTo = <T extends { atMs: number }>(xs: readonly T[]) => xs.filter((x) => x.atMs <= end.atMs);
  const lines = answered ? conversation.lines.filter((l) => l.startMs <= end.atMs) : [];
  const items = answered ? upTo(conversation.items) : [];
  const details = detailsOf(agent.collects, items, answered && status === 'completed');
  const answeredAt = answered ? wallAt(answeredAtMs) : null;
  const endedAt = wallAt(end.atMs);
  const duration = connectedSeconds(answeredAt, endedAt);
  const said = (atMs: number | null) => answered && atMs !== null && atMs <= end.atMs;
  const objection = said(conversation?.objectionAtMs ?? null);
  const optedOut = said(conversation?.optOutAtMs ?? null);
  return {
    status,
    answered_at: answeredAt,
    ended_at: endedAt,
    duration_seconds: duration,
    transcript: transcriptOf(lines, wallAt),
    // No conversation (unanswered, or a voicemail message): nothing to read a mood from.
    sentiment:
      answered && status === 'completed' && plan.mood ? sentimentOf(plan.mood, details.status) : 'neutral',
    call_summary: summaryOf({
      agentType: agent.agent_type,
      goal: agent.goal,
      who: plan.contact.fullName ?? request.to,
      outcome: status,
      how: end.how,
      details,
      total: agent.collects.length,
      declined: answered ? upTo(conversation.declined).map((d) => d.name) : [],
      objection,
      optedOut,
      cancelled: end.cancelled,
    }),
    call_end_reason: end.reason,
    ended_by: end.by,
    details_collection: details,
    opted_out: optedOut,
    ...costs(duration),
    sip: end.sip,
  };
}

/**
 * The system hung up `atMs` into the call. A call that was picked up keeps its outcome (completed,
 * or voicemail while the message was being left) with everything said so far; one that was not
 * is `failed`, since it was never connected. `answered` says whether the call service has seen
 * the pick-up: it must not learn of a completed call it still believes to be ringing.
 */
export function cutShort(plan: CallPlan, atMs: number, answered: boolean): PlannedResult {
  const base = { atMs, reason: 'cancelled' as const, by: 'system' as const, cancelled: true };
  if (answered && plan.answeredAtMs !== null && atMs >= plan.answeredAtMs) {
    const sip = SIMULATED_SIP_RESPONSES[plan.outcome];
    return buildResult(plan, { ...base, how: 'was cut short when the system hung up', sip });
  }
  const how = 'was cancelled by the system before it was answered';
  return buildResult(plan, { ...base, how, sip: SIP_REQUEST_TERMINATED }, 'failed');
}
