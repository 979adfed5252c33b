import type { CollectedDetail } from '@voice/shared/contracts';
import { parseName } from './callee';
import { type LocalNow, parseDate, parseWhen, spokenDate, spokenTime } from './dates';
import { INTENT_PHRASES, intentsIn } from './intents';
import { numberAt, parseDigits, parseNumber } from './numbers';
import { spokenDigits, spokenOption } from './spoken';
import { clip, phraseTable, withoutPhrases, words } from './text';

// A detail's value from what the callee said, by the detail's type, and back into words for the
// agent's read-back. Also the check of values an LLM hands over in `record_detail`.

export type DetailValue = string | number | boolean;

export type Parsed =
  | { value: DetailValue }
  /** A datetime detail heard in part: the brain asks for the rest. */
  | { partial: { date: string | null; time: string | null } }
  | null;

/** Longest free-text answer kept; recognised speech longer than this is noise. */
export const MAX_TEXT_VALUE = 200;
/** Longest utterance the parsers look at. */
const MAX_UTTERANCE = 500;

/** Details whose string value is the callee's own name: parsed as a name ("my name is jordan"). */
export const isNameDetail = (detail: CollectedDetail): boolean =>
  detail.type === 'string' && /^(first_|full_|contact_|caller_|customer_)?name$/.test(detail.name);

const FILLERS = phraseTable([
  ...Object.values(INTENT_PHRASES).flat(),
  'um',
  'uh',
  'er',
  'erm',
  'hmm',
  'mm',
  'well',
  'i think',
  "it's",
  'it is',
  'its',
  'in',
  'around',
  'probably',
  'maybe',
]);

/** What the callee said for `detail`, or null when it holds no value of the detail's type. */
export function parseDetail(detail: CollectedDetail, utterance: string, today: LocalNow): Parsed {
  const text = utterance.slice(0, MAX_UTTERANCE);
  switch (detail.type) {
    case 'string': {
      if (isNameDetail(detail)) return wrap(parseName(text));
      const rest = withoutPhrases(words(text), FILLERS).join(' ');
      return rest === '' ? null : { value: clip(rest, MAX_TEXT_VALUE) };
    }
    case 'number':
      return wrap(parseNumber(text));
    case 'boolean':
      return wrap(yesNo(text));
    case 'enum':
      return wrap(matchOption(detail.options ?? [], text));
    case 'date':
      return wrap(parseDate(text, today));
    case 'datetime': {
      const when = parseWhen(text, today);
      if (when.date && when.time) return { value: `${when.date}T${when.time}` };
      return when.date || when.time ? { partial: when } : null;
    }
    case 'phone': {
      const digits = parseDigits(text, 7, 15);
      if (!digits) return null;
      return { value: /\bplus\b|\+/.test(text) ? `+${digits}` : digits };
    }
    case 'email':
      return wrap(parseEmail(text));
  }
}

const wrap = (value: DetailValue | null): Parsed => (value === null ? null : { value });

/** yes -> true, no -> false; null for neither or both. */
export function yesNo(text: string): boolean | null {
  const intents = intentsIn(text);
  const yes = intents.includes('yes');
  const no = intents.includes('no');
  return yes === no ? null : yes;
}

// ---------------------------------------------------------------------------------------------
// Enum options

const SYNONYMS: readonly [string[], string[]][] = [
  [['more', 'than'], ['over']],
  [['longer', 'than'], ['over']],
  [['less', 'than'], ['within']],
  [['under'], ['within']],
];
const UNIT_NOUNS = new Set(['day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years']);
const STOP = new Set([
  'to',
  'in',
  'of',
  'the',
  'a',
  'an',
  'and',
  'or',
  'i',
  'we',
  'my',
  'would',
  'say',
  'like',
]);

/** A crude stem: enough that "selling" meets "sell", "months" meets "month", "moving" meets "move". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  for (const suffix of ['ing', 'ed', 'es', 's', 'e']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) return w.slice(0, -suffix.length);
  }
  return w;
}

/** Answer words normalised for option matching: numbers as digits, "a month" as "1 month", synonyms. */
function answerTokens(text: string): string[] {
  const tokens = words(text.slice(0, MAX_UTTERANCE));
  const out: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const t = tokens[i]!;
    if ((t === 'a' || t === 'an') && UNIT_NOUNS.has(tokens[i + 1] ?? '')) {
      out.push('1');
      i++;
      continue;
    }
    const synonym = SYNONYMS.find(([from]) => from.every((w, j) => tokens[i + j] === w));
    if (synonym) {
      out.push(...synonym[1]);
      i += synonym[0].length;
      continue;
    }
    const n = numberAt(tokens, i);
    if (n && n.start === i) {
      out.push(String(n.value));
      i = n.end;
      continue;
    }
    out.push(t);
    i++;
  }
  return out;
}

const content = (tokens: readonly string[]) => tokens.filter((t) => !STOP.has(t)).map(stem);

/**
 * The option the callee named: every content word of the option heard wins (the longest such
 * option; a tie is ambiguous), else the option with most of its words heard when that is at least
 * half of them and no other option does as well.
 */
export function matchOption(options: readonly string[], text: string): string | null {
  const heard = new Set(content(answerTokens(text)));
  if (heard.size === 0) return null;
  const scored = options.map((option) => {
    const own = content(words(option.replace(/_/g, ' ')));
    const hits = own.filter((w) => heard.has(w)).length;
    return { option, size: own.length, hits, ratio: own.length === 0 ? 0 : hits / own.length };
  });
  const full = scored.filter((s) => s.size > 0 && s.hits === s.size).sort((a, b) => b.size - a.size);
  if (full.length > 0) {
    return full.length > 1 && full[1]!.size === full[0]!.size ? null : full[0]!.option;
  }
  const partial = scored.filter((s) => s.ratio >= 0.5).sort((a, b) => b.ratio - a.ratio || b.hits - a.hits);
  if (partial.length === 0) return null;
  const [best, next] = partial;
  return next && next.ratio === best!.ratio && next.hits === best!.hits ? null : best!.option;
}

// ---------------------------------------------------------------------------------------------
// Email

const EMAIL = /^[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/;
const EMAIL_FILLERS = new Set([
  'my',
  'email',
  'e-mail',
  'mail',
  'address',
  'is',
  "it's",
  'it',
  'its',
  'sure',
  'yes',
]);
const SYMBOLS: Readonly<Record<string, string>> = { dot: '.', underscore: '_', dash: '-', hyphen: '-' };

/** "jordan at example dot com" (or a written address) -> "jordan@example.com"; null when not an address. */
export function parseEmail(text: string): string | null {
  const tokens = words(text.slice(0, MAX_UTTERANCE));
  const written = tokens.find((t) => EMAIL.test(t.replace(/\.$/, '')));
  if (written) return written.replace(/\.$/, '');
  const at = tokens.indexOf('at');
  if (at <= 0) return null;
  let start = at;
  while (start > 0 && !EMAIL_FILLERS.has(tokens[start - 1]!)) start--;
  const join = (part: readonly string[]) => part.map((t) => SYMBOLS[t] ?? t).join('');
  const address = `${join(tokens.slice(start, at))}@${join(tokens.slice(at + 1))}`;
  return EMAIL.test(address) ? address : null;
}

// ---------------------------------------------------------------------------------------------
// Read-back and checks of values from elsewhere

/** How the agent repeats a value back: "350,000", "one to three months", "Friday, June 6 at 3 PM". */
export function readBack(detail: CollectedDetail, value: DetailValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return value.toLocaleString('en-US');
  switch (detail.type) {
    case 'enum':
      return spokenOption(value);
    case 'date':
      return spokenDate(value);
    case 'datetime': {
      const [date, time] = value.split('T');
      return time ? `${spokenDate(date ?? '')} at ${spokenTime(time)}` : spokenDate(value);
    }
    case 'phone':
      return spokenDigits(value);
    default:
      return clip(value, 60);
  }
}

/**
 * A value for `detail` handed over by someone else (an LLM's `record_detail`), made to fit the
 * detail's type; null when it cannot.
 */
export function coerceDetailValue(
  detail: CollectedDetail,
  value: unknown,
  today: LocalNow,
): DetailValue | null {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
  if (typeof value === 'string' && value.length > MAX_UTTERANCE) return null;
  switch (detail.type) {
    case 'number':
      if (typeof value === 'number') return Number.isFinite(value) ? value : null;
      return typeof value === 'string' ? parseNumber(value) : null;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      return typeof value === 'string'
        ? /^(true|yes)$/i.test(value)
          ? true
          : /^(false|no)$/i.test(value)
            ? false
            : null
        : null;
    case 'enum': {
      const options = detail.options ?? [];
      if (typeof value !== 'string') return null;
      return options.includes(value) ? value : matchOption(options, value);
    }
    case 'date':
      if (typeof value !== 'string') return null;
      return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : parseDate(value, today);
    default: {
      const text = String(value).trim();
      return text === '' ? null : clip(text, MAX_TEXT_VALUE);
    }
  }
}
