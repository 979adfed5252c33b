import { NUMBER_WORDS_BELOW_20, TENS_WORDS } from '../english-words';
import { humanise } from './text';

// Numbers and keys as the agent says them: speech synthesis reads "1_3_months" badly, and a phone
// number read as one big number is useless to the listener.

const SMALL = NUMBER_WORDS_BELOW_20;
const TENS = TENS_WORDS;

/** A whole number from 0 to 999 in words; larger ones stay digits (speech synthesis reads those). */
export function numberWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 999) return String(n);
  if (n < 20) return SMALL[n]!;
  if (n < 100) return n % 10 === 0 ? TENS[n / 10]! : `${TENS[Math.floor(n / 10)]} ${SMALL[n % 10]}`;
  const rest = n % 100;
  return `${SMALL[Math.floor(n / 100)]} hundred${rest === 0 ? '' : ` ${numberWords(rest)}`}`;
}

/** An enum option as words: `1_3_months` -> "one to three months", `within_1_month` -> "within one month". */
export function spokenOption(option: string): string {
  return humanise(option)
    .replace(/\b(\d+) (\d+)\b/g, '$1 to $2')
    .replace(/\b\d+\b/g, (d) => numberWords(Number(d)));
}

/** Digits one by one, in groups of three or four with pauses: "+15550100" -> "one, five five five, ...". */
export function spokenDigits(number: string): string {
  const digits = number.replace(/\D/g, '');
  const groups: string[] = [];
  // A North American number reads 1, 555, 010, 0199; others in threes with a last group of up to four.
  let rest = digits;
  if (digits.length === 11 && digits.startsWith('1')) {
    groups.push(digits.slice(0, 1), digits.slice(1, 4), digits.slice(4, 7), digits.slice(7));
    rest = '';
  }
  while (rest.length > 4) {
    groups.push(rest.slice(0, 3));
    rest = rest.slice(3);
  }
  if (rest !== '') groups.push(rest);
  return groups.map((g) => [...g].map((d) => SMALL[Number(d)]).join(' ')).join(', ');
}
