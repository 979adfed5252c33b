import { words } from './text';

// Numbers as people say them ("three hundred fifty thousand", "350,000", "one point five million")
// and digit strings read one by one ("five five five, oh one two three"). Hand-written: the npm
// word-to-number packages handle either digits or words, not the recogniser's mix of both.

export const UNIT_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
export const TENS_WORDS: Readonly<Record<string, number>> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Readonly<Record<string, number>> = { thousand: 1e3, million: 1e6, billion: 1e9 };
/** Larger than any amount a caller gives; beyond it a "number" is noise. */
const MAX_NUMBER = 1e13;

/** A digit token: "350000", "350,000", "$350,000", "1.5", "350k". */
function digitValue(token: string): number | null {
  const m = /^\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(k|m)?$/.exec(token);
  if (!m) return null;
  const base = Number(`${m[1]!.replace(/,/g, '')}${m[2] ?? ''}`);
  const scale = m[3] === 'k' ? 1e3 : m[3] === 'm' ? 1e6 : 1;
  return base * scale;
}

type Kind = 'unit' | 'tens' | 'hundred' | 'scale' | 'digits';

function classify(token: string): { kind: Kind; value: number } | null {
  if (token in UNIT_WORDS) return { kind: 'unit', value: UNIT_WORDS[token]! };
  if (token in TENS_WORDS) return { kind: 'tens', value: TENS_WORDS[token]! };
  if (token === 'hundred') return { kind: 'hundred', value: 100 };
  if (token in SCALES) return { kind: 'scale', value: SCALES[token]! };
  const digits = digitValue(token);
  return digits === null ? null : { kind: 'digits', value: digits };
}

/**
 * The first whole or decimal number said in `tokens` from `start`, and where it ended; null when
 * none. A run stops where a new number plainly begins ("five five" is two numbers, not ten).
 */
export function numberAt(
  tokens: readonly string[],
  start = 0,
): { value: number; start: number; end: number } | null {
  for (let i = start; i < tokens.length; i++) {
    const parsed = runFrom(tokens, i);
    if (parsed) return parsed;
  }
  return null;
}

function runFrom(tokens: readonly string[], i: number): { value: number; start: number; end: number } | null {
  let total = 0;
  let current = 0;
  let last: Kind | 'point' | null = null;
  let any = false;
  let j = i;
  // "a hundred", "a thousand", "half a million"
  let half = false;
  if (tokens[j] === 'half' && tokens[j + 1] === 'a' && tokens[j + 2] && tokens[j + 2]! in SCALES) {
    half = true;
    j += 1;
  }
  if (tokens[j] === 'a' && (tokens[j + 1] === 'hundred' || (tokens[j + 1] ?? '') in SCALES)) {
    current = 1;
    last = 'unit';
    j += 1;
  }
  for (; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token === 'and' && any && last !== 'point') continue;
    if (token === 'point' && any && (last === 'unit' || last === 'tens' || last === 'digits')) {
      // "one point five": the digits after the point, one word each.
      let scale = 0.1;
      let k = j + 1;
      let fraction = 0;
      while (k < tokens.length && tokens[k]! in UNIT_WORDS && UNIT_WORDS[tokens[k]!]! < 10) {
        fraction += UNIT_WORDS[tokens[k]!]! * scale;
        scale /= 10;
        k++;
      }
      if (k === j + 1) break;
      current += fraction;
      j = k - 1;
      last = 'point';
      continue;
    }
    const c = classify(token);
    if (!c) break;
    if (c.kind === 'unit') {
      // A unit after a unit or teen, or after "twenty five": a new number starts.
      if (last === 'unit' || last === 'digits' || last === 'point' || (last === 'tens' && current % 10 !== 0))
        break;
      if (last === 'tens' && c.value >= 10) break;
      current += c.value;
    } else if (c.kind === 'tens') {
      if (last === 'unit' || last === 'tens' || last === 'digits' || last === 'point') break;
      current += c.value;
    } else if (c.kind === 'hundred') {
      if (last === 'hundred' || last === null) break;
      current = current * 100;
    } else if (c.kind === 'scale') {
      if (last === null || last === 'scale') break;
      total += current * c.value;
      current = 0;
    } else {
      if (any && last !== 'scale' && last !== 'hundred') break;
      current += c.value;
    }
    last = c.kind;
    any = true;
  }
  if (!any) return null;
  let value = total + current;
  if (half) value /= 2;
  if (!Number.isFinite(value) || value > MAX_NUMBER) return null;
  return { value: Math.round(value * 1e6) / 1e6, start: i, end: j };
}

/** The first number in `text`; null when it holds none. */
export function parseNumber(text: string): number | null {
  return numberAt(words(text))?.value ?? null;
}

const DIGIT_WORDS: Readonly<Record<string, string>> = {
  zero: '0',
  oh: '0',
  o: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
};

/**
 * Digits read out one by one or in small groups ("five five five, twelve thirty four", "double
 * two"), as a digit string; null when fewer than `minDigits` were said. Fillers between groups
 * ("dash", "and") are skipped.
 */
export function parseDigits(text: string, minDigits = 3, maxDigits = 15): string | null {
  const tokens = words(text);
  let out = '';
  let started = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const repeat = token === 'double' ? 2 : token === 'triple' ? 3 : 0;
    if (repeat > 0 && tokens[i + 1] && tokens[i + 1]! in DIGIT_WORDS) {
      out += DIGIT_WORDS[tokens[i + 1]!]!.repeat(repeat);
      i++;
      started = true;
      continue;
    }
    if (token in DIGIT_WORDS && !(token === 'o' && !started)) {
      out += DIGIT_WORDS[token]!;
      started = true;
    } else if (token in UNIT_WORDS) {
      out += String(UNIT_WORDS[token]);
      started = true;
    } else if (token in TENS_WORDS) {
      const next = tokens[i + 1];
      const unit = next !== undefined && next in DIGIT_WORDS && next !== 'oh' && next !== 'o' ? next : null;
      out += unit ? String(TENS_WORDS[token]! + Number(DIGIT_WORDS[unit])) : String(TENS_WORDS[token]);
      if (unit) i++;
      started = true;
    } else if (token === 'hundred' && started) {
      out += '00';
    } else if (/^\+?[\d-]+$/.test(token)) {
      out += token.replace(/\D/g, '');
      started = true;
    } else if (started && !['dash', 'and', 'then', 'plus'].includes(token)) {
      break;
    }
    if (out.length > maxDigits) return null;
  }
  return out.length >= minDigits ? out : null;
}
