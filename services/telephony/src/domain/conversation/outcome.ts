import type { CollectedDetail } from '@voice/shared/contracts';
import type { ConversationEnd, ConversationLine, ConversationOutcome } from '../../conversation/types';
import { type DetailValue, readBack } from './detail-values';
import { INTENT_PHRASES, THANKS_PHRASES } from './intents';
import type { Plan } from './plan';
import { clip, humanise, phraseAt, phraseTable, spokenList, withoutPhrases, words } from './text';

// Sentiment and summary of a finished conversation, from what was said and how it ended. Both
// deterministic (no model call, for either brain): the same call always reads the same way.

const NEGATIVE = phraseTable([
  ...INTENT_PHRASES.not_interested,
  ...INTENT_PHRASES.opt_out,
  'annoying',
  'annoyed',
  'scam',
  'stupid',
  'ridiculous',
  'hate',
  'angry',
  'waste of time',
  'leave me alone',
  'go away',
  'shut up',
  'rude',
  'harassment',
  'terrible',
  'awful',
  'sick of',
  'fed up',
]);
const POSITIVE = phraseTable([
  ...INTENT_PHRASES.yes,
  ...THANKS_PHRASES,
  'interested',
  'great',
  'perfect',
  'sounds good',
  'wonderful',
  'excellent',
  'love',
  'happy',
  'awesome',
  'please',
]);

function count(tokens: readonly string[], table: readonly (readonly string[])[]): number {
  let n = 0;
  const rest = [...tokens];
  for (const phrase of table) {
    for (let at = phraseAt(rest, phrase); at >= 0; at = phraseAt(rest, phrase)) {
      n++;
      rest.splice(at, phrase.length);
    }
  }
  return n;
}

/**
 * Positive for interest, agreement and thanks; negative for refusals, opt-outs and angry words
 * (counted first, so "not interested" is not also "interested"); how the call ended weighs in.
 */
export function sentimentOf(
  lines: readonly ConversationLine[],
  signals: { end: ConversationEnd | null; optedOut: boolean },
): ConversationOutcome['sentiment'] {
  let score = 0;
  for (const line of lines) {
    if (line.role !== 'user') continue;
    const tokens = words(line.text.slice(0, 2000));
    score -= 2 * count(tokens, NEGATIVE);
    score += count(withoutPhrases(tokens, NEGATIVE), POSITIVE);
  }
  if (signals.optedOut || signals.end === 'opted_out') score -= 3;
  if (signals.end === 'not_interested') score -= 2;
  return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
}

export interface SummaryFacts {
  agent: string;
  agentType: string;
  /** Who the agent spoke with, when known. */
  callee: string | null;
  details: readonly CollectedDetail[];
  collected: Readonly<Record<string, DetailValue>>;
  end: ConversationEnd | null;
  /** When the callee asked to be called back. */
  callback: string | null;
  /** Whether the callee said anything the recogniser heard. */
  heard: boolean;
}

const ENDINGS: Readonly<Record<ConversationEnd | 'none', string>> = {
  completed: 'The conversation was completed.',
  not_interested: 'The callee was not interested.',
  call_back: 'The callee asked to be called back',
  opted_out: 'The callee asked not to be called again.',
  wrong_person: 'The agent had reached the wrong person.',
  silence: 'The call ended after the callee went silent.',
  max_duration: 'The call reached its maximum duration.',
  none: 'The call ended before the conversation was finished.',
};
/** Most collected values named in a summary; the record has them all. */
const MAX_LISTED = 6;

/** One to three sentences: who spoke with whom, what was collected, how it ended. */
export function summaryOf(facts: SummaryFacts): string {
  const who = `${facts.agent} (${humanise(facts.agentType) || 'agent'})`;
  const first =
    facts.end === 'wrong_person'
      ? `${who} called and reached someone else.`
      : facts.heard
        ? `${who} spoke with ${facts.callee ?? 'the callee'}.`
        : `${who} called ${facts.callee ?? 'the callee'}, who said nothing the agent could understand.`;
  const entries = Object.entries(facts.collected).filter(([name]) => name !== 'callback_time');
  const listed = entries.slice(0, MAX_LISTED).map(([name, value]) => {
    const detail = facts.details.find((d) => d.name === name);
    const said = detail ? readBack(detail, value) : String(value);
    return `${humanise(name)} ${clip(said, 40)}`;
  });
  if (entries.length > MAX_LISTED) listed.push(`${entries.length - MAX_LISTED} more`);
  const second = listed.length > 0 ? `Collected: ${spokenList(listed, 'and')}.` : null;
  let third = ENDINGS[facts.end ?? 'none'];
  if (facts.end === 'call_back') third += facts.callback ? ` (${facts.callback}).` : '.';
  return clip([first, second, third].filter((s) => s !== null).join(' '), 2000);
}

/** What either brain knows of the call at its end, besides the lines. */
export interface EndFacts {
  collected: Readonly<Record<string, DetailValue>>;
  optedOut: boolean;
  /** Who the agent spoke with, when known. */
  callee: string | null;
  callback: string | null;
  /** The brain heard words (the lines are looked at too). */
  heard: boolean;
}

/** The conversation's outcome: collected values, opt-out, sentiment and summary, deterministically. */
export function outcomeOf(
  plan: Plan,
  lines: readonly ConversationLine[],
  end: ConversationEnd | null,
  facts: EndFacts,
): ConversationOutcome {
  const { conversation } = plan.context;
  const collected = { ...facts.collected };
  return {
    collected,
    opted_out: facts.optedOut,
    sentiment: sentimentOf(lines, { end, optedOut: facts.optedOut }),
    summary: summaryOf({
      agent: plan.agent,
      agentType: conversation.agent_type,
      callee: facts.callee,
      details: conversation.collects,
      collected,
      end,
      callback: facts.callback,
      heard: facts.heard || lines.some((l) => l.role === 'user' && l.text.trim() !== ''),
    }),
  };
}
