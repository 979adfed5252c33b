import { NUMBER_WORDS_BELOW_20, TENS_WORDS } from '../../../domain/english-words';

// Whole numbers as English words ("350000" -> "three hundred fifty thousand"), so that a phrase
// written with digits ("3 bedrooms") can go into a grammar, whose words must be dictionary words.

const ONES = NUMBER_WORDS_BELOW_20.slice(0, 10);
const TEENS = NUMBER_WORDS_BELOW_20.slice(10);
const TENS = TENS_WORDS;
const SCALES: readonly [number, string][] = [
  [1_000_000_000, 'billion'],
  [1_000_000, 'million'],
  [1_000, 'thousand'],
];

/** Largest number spelled; longer digit strings are read digit by digit (a phone number, a code). */
export const MAX_SPELLED = 999_999_999_999;

function below1000(n: number): string[] {
  const words: string[] = [];
  if (n >= 100) {
    words.push(ONES[Math.floor(n / 100)]!, 'hundred');
    n %= 100;
  }
  if (n >= 20) {
    words.push(TENS[Math.floor(n / 10)]!);
    if (n % 10) words.push(ONES[n % 10]!);
  } else if (n >= 10) words.push(TEENS[n - 10]!);
  else if (n > 0) words.push(ONES[n]!);
  return words;
}

/** `digits` (only 0-9) as words: a number up to MAX_SPELLED, or digit by digit when longer or 0-led. */
export function spellDigits(digits: string): string[] {
  if (!/^\d+$/.test(digits)) throw new RangeError(`not digits: ${digits}`);
  const n = Number(digits);
  if ((digits.length > 1 && digits.startsWith('0')) || n > MAX_SPELLED) {
    return [...digits].map((d) => ONES[Number(d)]!);
  }
  if (n === 0) return ['zero'];
  const words: string[] = [];
  let rest = n;
  for (const [size, name] of SCALES) {
    if (rest >= size) {
      words.push(...below1000(Math.floor(rest / size)), name);
      rest %= size;
    }
  }
  words.push(...below1000(rest));
  return words;
}
