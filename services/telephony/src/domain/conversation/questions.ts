import type { CollectedDetail } from '@voice/shared/contracts';
import type { Expectation, SlotKind } from '../../conversation/types';
import { isNameDetail } from './detail-values';
import { spokenOption } from './spoken';
import { clip, lowerFirst, spokenList } from './text';

// Questions the agent asks for the details it collects, phrased from the detail's description,
// and what the recogniser should listen for after each.

/** The people a catalogue description talks about in the third person: the callee, when asked. */
const ROLES =
  'lead|prospect|customer|owner|visitor|debtor|person|patient|student|candidate|caller|buyer|seller|renter|tenant|client|user|contact|homeowner|guest|applicant|member|policyholder|parent|donor|subscriber';
const SUBJECTS: readonly [RegExp, string][] = [
  [new RegExp(`\\b(the|a|an) (${ROLES})(’s|'s)`, 'gi'), 'your'],
  [new RegExp(`\\b(the|a|an) (${ROLES})\\b`, 'gi'), 'you'],
  [/\btheir\b/gi, 'your'],
  [/\bthey\b/gi, 'you'],
  [/\bthem(selves)?\b/gi, 'you'],
];
const AGREEMENT: Readonly<Record<string, string>> = {
  wants: 'want',
  needs: 'need',
  has: 'have',
  is: 'are',
  was: 'were',
  does: 'do',
  plans: 'plan',
  intends: 'intend',
  prefers: 'prefer',
  expects: 'expect',
  hopes: 'hope',
  uses: 'use',
  thinks: 'think',
  likes: 'like',
};

/** "What the lead wants to do" -> "what you want to do"; "whether a buyer already has" -> "whether you already have". */
export function toSecondPerson(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SUBJECTS) out = out.replace(pattern, replacement);
  return out.replace(
    /\byou((?: already| still| currently| now| really)?) (\w+)\b/gi,
    (_m, adverb: string, verb: string) => `you${adverb} ${AGREEMENT[verb.toLowerCase()] ?? verb}`,
  );
}

/** Most options offered in one question; longer lists are not read out. */
const MAX_OFFERED = 6;

/** The question for a detail: "Could you tell me what you want to do? Would you say buy, sell, ...?" */
export function questionFor(detail: CollectedDetail): string {
  if (isNameDetail(detail)) return 'May I have your name, please?';
  const d = lowerFirst(toSecondPerson(detail.description.trim().replace(/[.?!]+$/, '')));
  let q: string;
  if (/^(whether|how|what|when|which|who|why|if)\b/.test(d)) q = `Could you tell me ${d}?`;
  else if (detail.type === 'date' || detail.type === 'datetime') {
    const what = detail.type === 'date' ? 'date' : 'day and time';
    q = `About the ${d.replace(/^(the|a|an|your) /, '')}: what ${what} would suit you?`;
  } else if (/^(the|a|an|any|some|your)\b/.test(d)) q = `Could you give me ${d}?`;
  else q = `Could you give me the ${d}?`;
  const options = offered(detail);
  if (options.length > 0) q += ` Would you say ${spokenList(options)}?`;
  return clip(q, 400);
}

function offered(detail: CollectedDetail): string[] {
  const options = detail.type === 'enum' ? (detail.options ?? []) : [];
  return options.length > 0 && options.length <= MAX_OFFERED ? options.map(spokenOption) : [];
}

/** The same question once more after an answer that did not fit, shorter where it can be. */
export function reaskFor(detail: CollectedDetail): string {
  const options = offered(detail);
  if (options.length > 0) return `Sorry, I didn't catch that. Would you say ${spokenList(options)}?`;
  if (detail.type === 'boolean') return `Sorry, I didn't catch that. Is that a yes or a no?`;
  return `Sorry, I didn't catch that. ${questionFor(detail)}`;
}

const SLOTS: Readonly<Record<CollectedDetail['type'], readonly SlotKind[]>> = {
  string: [],
  number: ['number'],
  boolean: ['yes_no'],
  date: ['date'],
  datetime: ['date', 'time'],
  phone: ['digits'],
  email: [],
  enum: [],
};

/** What the recogniser listens for after asking `detail` (the intents are always heard besides). */
export function expectationFor(detail: CollectedDetail): Expectation {
  if (isNameDetail(detail)) return { slots: ['name'], phrases: ['my name is', 'this is'] };
  const phrases = detail.type === 'enum' ? (detail.options ?? []).map(spokenOption) : [];
  return { slots: SLOTS[detail.type], phrases };
}

/** Why the agent calls, said to the callee: "to find out what you want, your budget ..." (bounded). */
export function purposeOf(goal: string): string | null {
  const first = goal.trim().split(/(?<=[.!?])\s/)[0] ?? '';
  if (first === '') return null;
  return clip(lowerFirst(toSecondPerson(first)).replace(/[.!?]+$/, ''), 160);
}
