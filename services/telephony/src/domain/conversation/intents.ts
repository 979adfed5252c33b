import type { Intent } from '../../conversation/types';
import { hasAnyPhrase, phraseTable, words } from './text';

// The standard intents as phrase tables. Recognised text comes from pocketsphinx in grammar mode,
// so callers' words arrive close to these phrases; the same tables feed the recogniser's grammar
// (ALWAYS_HEARD_PHRASES) so that what can be heard is exactly what can be understood.

export const INTENT_PHRASES: Readonly<Record<Intent, readonly string[]>> = {
  yes: [
    'yes',
    'yeah',
    'yep',
    'yup',
    'sure',
    'of course',
    "that's right",
    'that is right',
    "that's me",
    'that is me',
    'correct',
    'speaking',
    'absolutely',
    'definitely',
    'okay',
    'ok',
    'go ahead',
    'uh huh',
    'i do',
    'i am',
    'it is',
  ],
  no: [
    'no',
    'nope',
    'nah',
    'not really',
    "i don't think so",
    'i do not think so',
    'no thanks',
    'no thank you',
  ],
  not_interested: [
    'not interested',
    "i'm not interested",
    'i am not interested',
    'not for me',
    "don't need it",
    'do not need it',
    "don't want it",
    'do not want it',
    'no interest',
  ],
  call_back: [
    'call me back',
    'call back',
    'call me later',
    'call me tomorrow',
    'call later',
    'call tomorrow',
    'call me another time',
    'another time',
    'not a good time',
    'bad time',
    "i'm busy",
    'i am busy',
    'busy right now',
    "i'm driving",
    'i am driving',
    'in a meeting',
  ],
  opt_out: [
    'stop calling',
    'stop calling me',
    'take me off',
    'take me off your list',
    'off your list',
    'remove me',
    'remove my number',
    'do not call',
    "don't call",
    'dont call',
    'never call',
    'no more calls',
    'unsubscribe',
  ],
  wrong_person: [
    'wrong number',
    'wrong person',
    'no one by that name',
    'nobody by that name',
    'no one here by that name',
    "doesn't live here",
    'does not live here',
    "that's not me",
    'that is not me',
    'not me',
  ],
  question: [
    'who is this',
    "who's this",
    'who are you',
    'who is calling',
    "who's calling",
    'what is this about',
    "what's this about",
    'what is this regarding',
    'what is it about',
    'why are you calling',
    'what do you want',
    'where are you calling from',
    'what company',
  ],
  greeting: ['hello', 'hi', 'hey', 'good morning', 'good afternoon', 'good evening'],
  goodbye: ['goodbye', 'good bye', 'bye', 'bye bye', 'have a good day', 'have a nice day', 'i have to go'],
};

/** Thanks: no intent of its own (it neither answers nor ends), but heard, and a positive sign. */
export const THANKS_PHRASES: readonly string[] = [
  'thank you',
  'thanks',
  'thanks a lot',
  'thank you very much',
];

/** Declining to answer one question: the brain skips the detail instead of asking again. */
export const DECLINE_PHRASES: readonly string[] = [
  'rather not say',
  "i'd rather not",
  'i would rather not',
  'prefer not to say',
  "i don't know",
  'i do not know',
  'not sure',
  "i'm not sure",
  'skip',
  'pass',
  'no comment',
];

/** When several intents are heard, the one that decides the turn: ending the call wins over answering. */
export const INTENT_PRIORITY: readonly Intent[] = [
  'opt_out',
  'wrong_person',
  'not_interested',
  'call_back',
  'question',
  'goodbye',
  'no',
  'yes',
  'greeting',
];

const TABLES = new Map<Intent, string[][]>(
  INTENT_PRIORITY.map((intent) => [intent, phraseTable(INTENT_PHRASES[intent])]),
);
const DECLINE_TABLE = phraseTable(DECLINE_PHRASES);
const THANKS_TABLE = phraseTable(THANKS_PHRASES);

/** Every intent heard in `text`, most decisive first. "no, not interested" is both `not_interested` and `no`. */
export function intentsIn(text: string): Intent[] {
  const tokens = words(text);
  return INTENT_PRIORITY.filter((intent) => {
    const table = TABLES.get(intent) ?? [];
    if (!hasAnyPhrase(tokens, table)) return false;
    // "no" inside "no one by that name" or "not interested" is not a plain no.
    if (intent === 'no' || intent === 'yes') return !shadowed(tokens, intent);
    return true;
  });
}

/** A yes/no word that is only part of a longer phrase of another intent or a decline ("not sure"). */
function shadowed(tokens: readonly string[], intent: 'yes' | 'no'): boolean {
  const own = TABLES.get(intent) ?? [];
  const others = [
    ...INTENT_PRIORITY.filter((i) => i !== 'yes' && i !== 'no').flatMap((i) => TABLES.get(i) ?? []),
    ...DECLINE_TABLE,
  ];
  const covered = new Set<number>();
  for (const phrase of others) {
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      if (phrase.every((w, j) => tokens[i + j] === w))
        for (let j = 0; j < phrase.length; j++) covered.add(i + j);
    }
  }
  for (const phrase of own) {
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      const hit = phrase.every((w, j) => tokens[i + j] === w);
      if (hit && phrase.some((_, j) => !covered.has(i + j))) return false;
    }
  }
  return true;
}

/** The intent that decides the turn, or null when `text` holds none. */
export function intentOf(text: string): Intent | null {
  return intentsIn(text)[0] ?? null;
}

export const declines = (text: string): boolean => hasAnyPhrase(words(text), DECLINE_TABLE);
export const thanks = (text: string): boolean => hasAnyPhrase(words(text), THANKS_TABLE);

/** Phrases the recogniser should always be able to hear, whatever the turn expects. */
export const ALWAYS_HEARD_PHRASES: readonly string[] = [
  ...new Set([...Object.values(INTENT_PHRASES).flat(), ...THANKS_PHRASES, ...DECLINE_PHRASES]),
];
