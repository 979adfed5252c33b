import { type Expectation, INTENTS, type SlotKind } from '../../../conversation/types';
import { type RuleSet, SLOT_RULES } from './slot-rules';
import {
  COMMON_NAMES,
  FILLERS,
  type Frame,
  INTENT_PHRASES,
  NAME_FRAME,
  NUMBER_FRAME,
  PHRASE_FRAME,
  WHEN_FRAME,
} from './vocabulary';
import { type Lexicon, toWords } from './words';

export interface GrammarRequest {
  expect: Expectation;
  /** Names of the call (callee, agent): always heard in "this is <name>", alone when `name` is expected. */
  names: readonly string[];
}

/** One turn's grammar for pocketsphinx (`-jsgf`), and what it could not include. */
export interface TurnGrammar {
  jsgf: string;
  /** Every word the grammar uses, sorted: the dictionary needs exactly these. */
  words: string[];
  /** Words of the request (names, phrases) or the vocabulary the dictionary lacks: not heard this turn. */
  unknown: string[];
}

/** Most phrases and names taken from one request: the grammar is per turn and stays small. */
export const MAX_PHRASES = 200;

const TOP = 'utterance';

/**
 * The grammar of one turn: an utterance is talk (intent phrases, fillers, yes/no sentences) with
 * at most one answer in it: an expected slot inside the sentence around it ("my name is
 * <name>", "about <number> dollars", "call me back <when>") or one of the turn's phrases ("the
 * <phrase> one"). Talk loops, so that "hello yes this is jordan speaking, thanks" is heard too.
 */
export function buildGrammar(request: GrammarRequest, lexicon: Lexicon): TurnGrammar {
  const rules: Record<string, string[]> = {};
  const unknown = new Set<string>();
  // What people say around an answer (intents, fillers), and the answers the turn expects.
  const talk: string[] = [];
  const answers: string[] = [];
  const add = (name: string, alternatives: readonly string[]) => {
    rules[name] = [...new Set([...(rules[name] ?? []), ...alternatives])];
  };
  const addSet = (set: RuleSet) => {
    for (const [name, alternatives] of Object.entries(set)) add(name, alternatives);
  };

  for (const intent of INTENTS) {
    add(`intent_${intent}`, INTENT_PHRASES[intent]);
    talk.push(`<intent_${intent}>`);
  }
  add('filler', FILLERS);
  talk.push('<filler>');

  const slots = new Set<SlotKind>(request.expect.slots);
  const framed = (name: string, value: string, frame: Frame, bare: boolean) => {
    add(`${name}_before`, frame.before);
    add(`${name}_after`, frame.after);
    const before = `<${name}_before>`;
    const after = `<${name}_after>`;
    add(
      name,
      bare ? [`[${before}] ${value} [${after}]`] : [`${before} ${value} [${after}]`, `${value} ${after}`],
    );
    answers.push(`<${name}>`);
  };
  const alone: string[] = [];
  const given = literalAlternatives(request.names, lexicon, unknown, true);
  const names = [...given, ...(slots.has('name') ? COMMON_NAMES : [])];
  if (names.length > 0) {
    // A name stands alone only as the whole answer ("jordan"): as a part of the loop, "my name is
    // jordan" came out as "i'm amy" + "jordan". And a name of the call that is not expected this
    // turn counts only inside a sentence ("this is jordan").
    add('name', names);
    framed('name_answer', '<name>', NAME_FRAME, false);
    if (slots.has('name')) alone.push('[<filler>] <name>');
  }
  for (const slot of ['number', 'date', 'time', 'digits', 'yes_no'] as const) {
    if (slots.has(slot)) addSet(SLOT_RULES[slot]);
  }
  if (slots.has('number')) framed('number_answer', '<number>', NUMBER_FRAME, true);
  const when = whenExpression(slots);
  if (when) framed('when_answer', when, WHEN_FRAME, true);
  if (slots.has('digits')) answers.push('<digits>');
  if (slots.has('yes_no')) talk.push('<yes_no>');
  const phrases = literalAlternatives(request.expect.phrases, lexicon, unknown, false);
  if (phrases.length > 0) {
    add('phrase', phrases);
    framed('phrase_answer', '<phrase>', PHRASE_FRAME, true);
  }
  add('talk', talk);
  if (answers.length > 0) add('answer', answers);
  // pocketsphinx (sphinxbase jsgf.c) expands a rule at the state its caller is in and links a
  // loop back to that state: a loop first in an alternative returns to a state its sibling
  // alternatives share, and lets the decoder wander into them ("i'm amy" + a lone "jordan"). So
  // no alternative starts with a loop: "<talk> <talk>*", not "<talk>+".
  // One answer an utterance: as a loop of any parts, "three hundred fifty thousand" came out as
  // three numbers "three hundred fifty", "twelve", "ten".
  add(
    TOP,
    answers.length > 0
      ? ['<talk> <talk>* [<answer> <talk>*]', '<answer> <talk>*', ...alone]
      : ['<talk> <talk>*', ...alone],
  );

  const kept = keepPronounceable(rules, lexicon, unknown);
  return { jsgf: render(kept), words: wordsOf(kept), unknown: [...unknown].sort() };
}

function whenExpression(slots: ReadonlySet<SlotKind>): string | null {
  const date = slots.has('date');
  const time = slots.has('time');
  if (date && time) return '(<date> [[at] <time>] | <time>)';
  if (date) return '<date>';
  if (time) return '<time>';
  return null;
}

/**
 * Phrases (or names) as grammar alternatives of dictionary words. A name also counts word by word
 * ("jordan smith": "jordan", "smith"), since people give their first name alone.
 */
function literalAlternatives(
  texts: readonly string[],
  lexicon: Lexicon,
  unknown: Set<string>,
  splitWords: boolean,
): string[] {
  const alternatives: string[] = [];
  for (const text of texts.slice(0, MAX_PHRASES)) {
    const { words, unknown: missing } = toWords(text, lexicon);
    for (const word of missing) unknown.add(word);
    if (words.length === 0) continue;
    alternatives.push(words.join(' '));
    if (splitWords && words.length > 1) alternatives.push(...words);
  }
  return alternatives;
}

function wordsOfExpression(expression: string): string[] {
  return expression
    .replace(/<[a-z_]+>/g, ' ')
    .split(/[\s()[\]|*+]+/)
    .filter(Boolean);
}

function referencesOf(expression: string): string[] {
  return [...expression.matchAll(/<([a-z_]+)>/g)].map((m) => m[1]!);
}

/**
 * Drops each alternative with a word the dictionary lacks (pocketsphinx refuses the whole grammar
 * for one such word), then each rule left empty and the alternatives that refer to it, until
 * nothing changes; keeps only what the top rule reaches.
 */
function keepPronounceable(
  rules: Record<string, string[]>,
  lexicon: Lexicon,
  unknown: Set<string>,
): Map<string, string[]> {
  const kept = new Map<string, string[]>();
  for (const [name, alternatives] of Object.entries(rules)) {
    kept.set(
      name,
      alternatives.filter((alternative) => {
        const missing = wordsOfExpression(alternative).filter((word) => !lexicon.has(word));
        for (const word of missing) unknown.add(word);
        return missing.length === 0;
      }),
    );
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, alternatives] of kept) {
      if (alternatives.length === 0) {
        kept.delete(name);
        changed = true;
        continue;
      }
      const usable = alternatives.filter((a) => referencesOf(a).every((ref) => kept.has(ref)));
      if (usable.length !== alternatives.length) {
        kept.set(name, usable);
        changed = true;
      }
    }
  }
  const reached = new Map<string, string[]>();
  const visit = (name: string) => {
    const alternatives = kept.get(name);
    if (!alternatives || reached.has(name)) return;
    reached.set(name, alternatives);
    for (const alternative of alternatives) for (const ref of referencesOf(alternative)) visit(ref);
  };
  visit(TOP);
  return reached;
}

function render(rules: ReadonlyMap<string, readonly string[]>): string {
  const lines = ['#JSGF V1.0;', 'grammar turn;'];
  for (const [name, alternatives] of rules) {
    lines.push(`${name === TOP ? 'public ' : ''}<${name}> = ${alternatives.join(' | ')};`);
  }
  return `${lines.join('\n')}\n`;
}

function wordsOf(rules: ReadonlyMap<string, readonly string[]>): string[] {
  const words = new Set<string>();
  for (const alternatives of rules.values()) {
    for (const alternative of alternatives)
      for (const word of wordsOfExpression(alternative)) words.add(word);
  }
  return [...words].sort();
}
