import type { SlotKind } from '../../../conversation/types';
import { MONTHS, NUMBER_WORDS_BELOW_20, TENS_WORDS, WEEKDAYS } from '../../../domain/english-words';

/**
 * JSGF rules, each a list of alternatives. An alternative is a JSGF expression of dictionary words,
 * `<rule>` references, `[optional]` parts and `(a | b)` groups; the grammar builder checks its words
 * and drops an alternative whose word the dictionary lacks (and any rule left empty).
 */
export type RuleSet = Readonly<Record<string, readonly string[]>>;

const DIGITS = NUMBER_WORDS_BELOW_20.slice(1, 10);
const TEENS = NUMBER_WORDS_BELOW_20.slice(10);
const DECADES = TENS_WORDS.slice(2);
const ORDINAL_UNITS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth'];
const ORDINAL_TEENS = [
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
];

// pocketsphinx turns JSGF into a finite-state graph by copying a rule at every reference: a rule
// referenced from many places (numbers inside dates inside sentences) grew one turn's graph to
// 7,000 states and 540,000 HMM nodes, decoding at 0.8x real time. So each rule below is referenced
// from as few places as possible, and the sentences around a slot are one optional lead-in and
// lead-out around a single copy of it (see grammar.ts).

/** Numbers as said: "three hundred fifty thousand", "two point five million", "fifteen hundred". */
const NUMBER_RULES: RuleSet = {
  digit: DIGITS,
  teen: TEENS,
  below_hundred: ['<digit>', '<teen>', `(${DECADES.join(' | ')}) [<digit>]`],
  group: ['(a | <digit> | <teen>) hundred [[and] <below_hundred>]', '<below_hundred>'],
  scale: ['thousand', 'million', 'billion'],
  number: [
    'zero',
    '<group> [point <digit> | and a half] (<scale> [[and] <group>])*',
    '(a | half a) <scale> [[and] <group>]',
  ],
};

const DATE_RULES: RuleSet = {
  weekday: WEEKDAYS,
  month: MONTHS,
  ordinal: [
    ...ORDINAL_UNITS,
    ...ORDINAL_TEENS,
    'twentieth',
    `twenty (${ORDINAL_UNITS.join(' | ')})`,
    'thirtieth',
    'thirty first',
  ],
  date: [
    'today',
    'tomorrow [morning | afternoon | evening | night]',
    'tonight',
    'the day after tomorrow',
    '[on] [this | next] <weekday> [the <ordinal>] [morning | afternoon | evening | night]',
    '[later] (this | next) (week | weekend | month)',
    '[on] (<month> <ordinal> | the <ordinal> [of <month>])',
    'in (a | one | two | three | four | a couple of) (day | days | week | weeks)',
  ],
};

const TIME_RULES: RuleSet = {
  digit: DIGITS,
  hour: [...DIGITS, 'ten', 'eleven', 'twelve'],
  minute: [
    "o'clock",
    'oh <digit>',
    `(${TEENS.join(' | ')})`,
    `(${DECADES.slice(0, 4).join(' | ')}) [<digit>]`,
  ],
  time: [
    '[at | after | before | around | about] (<hour> [<minute>] | noon | midnight | half past <hour> | [a] quarter (past | to) <hour>) [a m | p m | in the morning | in the afternoon | in the evening | at night]',
    '(in the | this) (morning | afternoon | evening)',
    'any time',
  ],
};

const DIGIT_RULES: RuleSet = {
  digit_word: ['zero', 'oh', ...DIGITS],
  digits: ['[double | triple] <digit_word> ([double | triple] <digit_word>)*'],
};

const YES_NO_RULES: RuleSet = {
  yes_no: [
    'yes it is',
    'no it is not',
    "no it's not",
    "no it isn't",
    'yes i have',
    "no i haven't",
    'no i have not',
    'yes we do',
    "no we don't",
    'yes we are',
    "no we're not",
    'i think so',
    "i'm not sure",
    "i don't know",
    'not sure',
  ],
};

/** The rules of each slot but `name` (built from the call's names); each slot's top rule has its name. */
export const SLOT_RULES: Readonly<Record<Exclude<SlotKind, 'name'>, RuleSet>> = {
  yes_no: YES_NO_RULES,
  number: NUMBER_RULES,
  date: DATE_RULES,
  time: TIME_RULES,
  digits: DIGIT_RULES,
};
