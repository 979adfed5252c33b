import { INTENT_PHRASES } from './intents';
import { capitalise, words } from './text';

// Who the callee is, from the call's metadata, and names as callers say them. Campaign calls carry
// the contact's columns under `metadata.contact`; single calls put keys at the top level: both are
// read, the top level winning (it was written for this very call).

export type Metadata = Readonly<Record<string, unknown>> | null;

/** Long enough for real names, short enough that pasted junk stays out of what the agent says. */
const MAX_NAME = 40;

function text(value: unknown, max = MAX_NAME): string | null {
  if (typeof value !== 'string') return null;
  const flat = value
    .replace(/[^\p{L}\p{M}' .-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat === '' || flat.length > max ? null : flat;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A metadata value by key: the top level first, then the contact's columns. */
export function metadataValue(metadata: Metadata, key: string): unknown {
  if (!metadata) return undefined;
  if (key in metadata) return metadata[key];
  const contact = metadata.contact;
  return isRecord(contact) ? contact[key] : undefined;
}

export interface Callee {
  /** How the agent addresses them ("Jordan"); null when the metadata names nobody. */
  firstName: string | null;
  fullName: string | null;
}

export function calleeOf(metadata: Metadata): Callee {
  const full = text(metadataValue(metadata, 'name')) ?? text(metadataValue(metadata, 'full_name'));
  const first = text(metadataValue(metadata, 'first_name')) ?? (full ? (full.split(' ')[0] ?? null) : null);
  const last = text(metadataValue(metadata, 'last_name'));
  return { firstName: first, fullName: full ?? (first && last ? `${first} ${last}` : first) };
}

/** The callee's IANA time zone when the metadata gives one (`timezone` key), for relative dates. */
export function timeZoneOf(metadata: Metadata): string | null {
  const zone = metadataValue(metadata, 'timezone');
  return typeof zone === 'string' && /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(zone) && zone.length <= 64
    ? zone
    : null;
}

// Words that follow "i'm" or "this is" without being a name.
const NOT_NAMES = new Set([
  ...Object.values(INTENT_PHRASES)
    .flat()
    .flatMap((p) => words(p)),
  'a',
  'an',
  'the',
  'he',
  'she',
  'his',
  'her',
  'my',
  'it',
  'is',
  'am',
  'me',
  'we',
  'you',
  'interested',
  'busy',
  'fine',
  'good',
  'great',
  'not',
  'here',
  'sorry',
  'calling',
  'listening',
  'driving',
  'well',
  'um',
  'uh',
  'just',
  'name',
  'wife',
  'husband',
  'son',
  'daughter',
  'mother',
  'father',
  'thanks',
  'thank',
]);

const INTRODUCTIONS = [
  ['my', 'name', 'is'],
  ['name', 'is'],
  ['this', 'is'],
  ["it's"],
  ['it', 'is'],
  ["i'm"],
  ['i', 'am'],
  ['call', 'me'],
];

const nameLike = (w: string | undefined): w is string =>
  w !== undefined && /^[a-z][a-z'-]{0,30}$/.test(w) && !NOT_NAMES.has(w);

const asName = (w: string): string => w.split('-').map(capitalise).join('-');

/**
 * The name a caller gives: "my name is jordan", "this is jordan", "jordan speaking", "jordan here",
 * or just "jordan". Null when no word looks like a name.
 */
export function parseName(utterance: string): string | null {
  const tokens = words(utterance);
  for (const intro of INTRODUCTIONS) {
    for (let i = 0; i + intro.length < tokens.length; i++) {
      if (intro.every((w, j) => tokens[i + j] === w) && nameLike(tokens[i + intro.length])) {
        const first = tokens[i + intro.length]!;
        const second = tokens[i + intro.length + 1];
        return nameLike(second) && tokens.length === i + intro.length + 2
          ? `${asName(first)} ${asName(second)}`
          : asName(first);
      }
    }
  }
  const at = tokens.findIndex((w, i) => nameLike(w) && ['speaking', 'here'].includes(tokens[i + 1] ?? ''));
  if (at >= 0) return asName(tokens[at]!);
  const content = tokens.filter(
    (w) => !['yes', 'yeah', 'hello', 'hi', 'um', 'uh', 'oh', 'it', 'is'].includes(w),
  );
  if (content.length >= 1 && content.length <= 2 && content.every(nameLike))
    return content.map(asName).join(' ');
  return null;
}

/** Whether `said` names the same person as `expected` (first names compared, case-insensitive). */
export function sameName(said: string, expected: string): boolean {
  const first = (s: string) => (s.trim().split(/\s+/)[0] ?? '').toLowerCase();
  return first(said) !== '' && first(said) === first(expected);
}
