import type { CallOutcome } from '@voice/shared';
import { type ContactInfo, contactFrom } from './contact';
import { type Conversation, converse, leaveMessage, type Mood } from './conversation';
import { createRng, type Rng } from './prng';
import { costs, detailsOf, sentimentOf, summaryOf, transcriptOf } from './result';
import type { CallEndReasonValue, CallResult, DialRequest, EndedByValue } from './types';

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
export function outcomeFor(to: string): CallOutcome {
  const tail = to.replace(/\D/g, '').slice(-4);
  const outcomes: Record<string, CallOutcome> = {
    '0001': 'no_answer',
    '0002': 'busy',
    '0003': 'voicemail',
    '0004': 'failed',
  };
  return outcomes[tail] ?? 'completed';
}

export interface PlannedEvent {
  type: 'ringing' | 'answered' | 'ended';
  atMs: number;
}

/** Everything about one simulated call; offsets are simulated ms from `request.startedAt`. */
export interface CallPlan {
  request: DialRequest;
  contact: ContactInfo;
  outcome: CallOutcome;
  mood: Mood | null;
  ringingAtMs: number | null;
  /**
   * When the line was picked up: by the contact (completed) or by the voicemail machine. Duration,
   * transcript and costs count from here. Only a human answer is an 'answered' event: decisions.md
   * moves a voicemail call from ringing straight to its outcome, never through in_progress.
   */
  answeredAtMs: number | null;
  endedAtMs: number;
  conversation: Conversation | null;
  events: PlannedEvent[];
  result: CallResult;
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

/** Deterministic per request: the same call always rings, answers, says and costs the same. */
export function planCall(request: DialRequest): CallPlan {
  // Seeded by the call id alone so that the timeline survives a restart that re-plans the call.
  const rng = createRng(`carrier:${request.callId}`);
  const contact = contactFrom(request.metadata);
  const outcome = outcomeFor(request.to);
  const limitMs = MAX_CALL_SECONDS * 1000 - TIMINGS.hangUpAfterLastWordMs[1] - 1000;
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
      how = `rang for ${Math.round((endedAtMs - ringingAtMs) / 1000)} seconds and was not answered`;
    } else if (outcome === 'busy') {
      endedAtMs = ringingAtMs + span(rng, TIMINGS.busyAfterMs);
      how = 'found the line busy';
    } else if (outcome === 'voicemail') {
      answeredAtMs = ringingAtMs + span(rng, TIMINGS.ringBeforeVoicemailMs);
      const messageAt = answeredAtMs + span(rng, TIMINGS.voicemailGreetingMs) + 500;
      const message = leaveMessage(request.agent, contact, request.from, rng, messageAt);
      conversation = { ...message, items: [], declined: [], objectionAtMs: null };
      endedAtMs = alignEnd(answeredAtMs, message.lastSpeechMs + span(rng, TIMINGS.hangUpAfterLastWordMs));
      how = `reached voicemail, and the agent left a ${Math.round((endedAtMs - answeredAtMs) / 1000)}-second message`;
    } else {
      answeredAtMs = ringingAtMs + span(rng, TIMINGS.ringBeforeAnswerMs);
      mood = pickMood(rng);
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
    }),
  };
}

interface Ending {
  atMs: number;
  reason: CallEndReasonValue;
  by: EndedByValue;
  how: string;
  cancelled: boolean;
}

/** The record of the plan's call as it stood at `end.atMs`: lines and items up to then. */
function buildResult(plan: Omit<CallPlan, 'result'>, end: Ending, status = plan.outcome): CallResult {
  const { request, conversation, answeredAtMs } = plan;
  const { startedAt, agent } = request;
  const answered = answeredAtMs !== null && conversation !== null && status === plan.outcome;
  const upTo = <T extends { atMs: number }>(xs: readonly T[]) => xs.filter((x) => x.atMs <= end.atMs);
  const lines = answered ? conversation.lines.filter((l) => l.startMs <= end.atMs) : [];
  const items = answered ? upTo(conversation.items) : [];
  const details = detailsOf(agent.collects, items, answered && status === 'completed');
  const duration = answered ? Math.floor((end.atMs - answeredAtMs) / 1000) : 0;
  const objection = answered && conversation.objectionAtMs !== null && conversation.objectionAtMs <= end.atMs;
  return {
    status,
    answered_at: answered ? new Date(startedAt.getTime() + answeredAtMs) : null,
    ended_at: new Date(startedAt.getTime() + end.atMs),
    duration_seconds: duration,
    transcript: transcriptOf(startedAt, lines),
    sentiment:
      answered && status === 'completed' && plan.mood ? sentimentOf(plan.mood, details.status) : null,
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
      cancelled: end.cancelled,
    }),
    call_end_reason: end.reason,
    ended_by: end.by,
    details_collection: details,
    ...costs(duration),
  };
}

/**
 * The system hung up `atMs` into the call. A call that was picked up keeps its outcome (completed,
 * or voicemail while the message was being left) with everything said so far; one that was not
 * is `failed`, since it was never connected. `answered` says whether the call service has seen
 * the pick-up: it must not learn of a completed call it still believes to be ringing.
 */
export function cutShort(plan: CallPlan, atMs: number, answered: boolean): CallResult {
  const base = { atMs, reason: 'cancelled' as const, by: 'system' as const, cancelled: true };
  if (answered && plan.answeredAtMs !== null && atMs >= plan.answeredAtMs) {
    return buildResult(plan, { ...base, how: 'was cut short when the system hung up' });
  }
  return buildResult(plan, { ...base, how: 'was cancelled by the system before it was answered' }, 'failed');
}
