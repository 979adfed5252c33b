import type { CallOutcome, CollectedDetail } from '@voice/shared';
import type { PlannedLine } from './conversation';
import type { CallSentiment, DetailsCollectionResult, TranscriptLine } from './types';
import { humanize } from './values';

/**
 * Simulated prices in USD per minute of connected time (answer to hang-up), billed per started
 * second. Telephony is in line with public US outbound PSTN rates; AI covers speech-to-text, the
 * language model and text-to-speech together. Unanswered calls cost nothing: carriers bill
 * connected time.
 */
export const RATES = { telephonyPerMinute: 0.014, aiPerMinute: 0.06 } as const;

const round = (value: number, places: number): number => {
  const f = 10 ** places;
  return Math.round(value * f + Number.EPSILON * f) / f;
};

export function costs(durationSeconds: number): {
  ai_cost: number;
  telephony_cost: number;
  total_cost: number;
} {
  const ai_cost = round((durationSeconds * RATES.aiPerMinute) / 60, 4);
  const telephony_cost = round((durationSeconds * RATES.telephonyPerMinute) / 60, 4);
  // Rounded again: the sum of two 4-decimal binary floats can carry a tail like ...0000001.
  return { ai_cost, telephony_cost, total_cost: round(ai_cost + telephony_cost, 4) };
}

/**
 * A call's duration: wall-clock seconds from answer to hang-up, counted per started second as
 * carriers bill (a call answered and hung up within one second lasted 1 s); 0 if never answered.
 */
export function connectedSeconds(answeredAt: Date | null, endedAt: Date): number {
  if (answeredAt === null) return 0;
  return Math.max(0, Math.ceil((endedAt.getTime() - answeredAt.getTime()) / 1000));
}

/** `HH:MM:SS` wall-clock time (UTC) of a moment. */
export function clockTime(at: Date): string {
  return at.toISOString().slice(11, 19);
}

/** The lines as said, each stamped with the wall-clock time its planned offset fell on. */
export function transcriptOf(
  lines: readonly PlannedLine[],
  wallAt: (atMs: number) => Date,
): TranscriptLine[] {
  return lines.map((l) => ({ role: l.role, content: l.content, timestamp: clockTime(wallAt(l.startMs)) }));
}

/** A detail the contact gave, by the name the agent type collects it under. */
export interface GivenDetail {
  name: string;
  value: unknown;
}

/**
 * complete: every required item was collected (an agent with nothing to collect is complete once
 * a conversation happened); none: nothing collected; partial otherwise. The score counts every
 * declared item, so a complete call that skipped optional ones scores below 1.
 */
export function detailsOf(
  collects: readonly CollectedDetail[],
  items: readonly GivenDetail[],
  conversed: boolean,
): DetailsCollectionResult {
  const names = new Set(items.map((i) => i.name));
  const total = collects.length;
  const empty = { collected_details: [], collected_values: {} };
  if (!conversed) return { status: 'none', score: 0, ...empty };
  if (total === 0) return { status: 'complete', score: 1, ...empty };
  const status =
    items.length === 0
      ? 'none'
      : collects.every((c) => !c.required || names.has(c.name))
        ? 'complete'
        : 'partial';
  return {
    status,
    score: Math.round((items.length / total) * 100) / 100,
    collected_details: items.map((i) => i.name),
    collected_values: Object.fromEntries(items.map((i) => [i.name, i.value])),
  };
}

/**
 * The details a conversation reported (values by name), as the agent's collects count them: only
 * declared details with a value, in the agent's order, so a name the agent never asked for (a
 * model's invention) cannot raise the score.
 */
export function reportedDetails(
  collects: readonly CollectedDetail[],
  reported: Readonly<Record<string, unknown>>,
): DetailsCollectionResult {
  const given = collects
    .filter((c) => Object.hasOwn(reported, c.name) && hasValue(reported[c.name]))
    .map((c) => ({ name: c.name, value: reported[c.name] }));
  return detailsOf(collects, given, true);
}

function hasValue(value: unknown): boolean {
  return value !== null && value !== undefined && !(typeof value === 'string' && value.trim() === '');
}

export interface SummaryInput {
  agentType: string;
  goal: string;
  who: string;
  outcome: CallOutcome;
  /** How the call ended, in a few words (used for unanswered and cut calls). */
  how: string;
  details: DetailsCollectionResult;
  total: number;
  declined: readonly string[];
  objection: boolean;
  /** The contact asked not to be called again. */
  optedOut: boolean;
  cancelled: boolean;
}

const listOf = (names: readonly string[]): string => {
  const shown = names.slice(0, 4).map(humanize);
  const more = names.length > 4 ? ` and ${names.length - 4} more` : '';
  return `${shown.join(', ')}${more}`;
};

/** 1-3 sentences: what kind of call it was and its goal, then what came of it. */
export function summaryOf(s: SummaryInput): string {
  const kind = `${humanize(s.agentType).replace(/^./, (c) => c.toUpperCase())} call to ${s.who}`;
  const goal = s.goal.trim().replace(/[.!?]*$/, '');
  const goalText = goal ? ` (goal: ${goal.charAt(0).toLowerCase()}${goal.slice(1)})` : '';
  if (s.outcome !== 'completed') return `${kind}${goalText} ${s.how}; no details were collected.`;
  const got = s.details.collected_details;
  const collected =
    s.total === 0
      ? 'The agent had no details to collect.'
      : got.length === 0
        ? `No details were collected out of ${s.total}.`
        : `Collected ${got.length} of ${s.total} details (${listOf(got)}); collection is ${s.details.status}.`;
  const extra = [
    s.objection ? 'the contact objected to the call at first' : '',
    s.declined.length > 0 ? `the contact declined to give ${listOf(s.declined)}` : '',
  ].filter(Boolean);
  const tail = extra.length > 0 ? ` Note: ${extra.join(', and ')}.` : '';
  const body = s.cancelled
    ? ' was cut short when the system hung up.'
    : s.optedOut
      ? ' connected, and the contact asked not to be called again.'
      : ' connected and the conversation finished.';
  return `${kind}${goalText}${body} ${collected}${tail}`;
}

/** Positive when it went smoothly and got what it needed; negative when the contact pushed back hard. */
export function sentimentOf(mood: string, status: DetailsCollectionResult['status']): CallSentiment {
  if (mood === 'reluctant' || mood === 'opting_out') return 'negative';
  if (mood === 'objection') return 'neutral';
  if (mood === 'brief') return status === 'complete' ? 'neutral' : 'negative';
  return status === 'none' ? 'neutral' : 'positive';
}
