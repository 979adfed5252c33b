import { spellDigits } from './spell-number';

/** The pronunciation dictionary, as far as the grammar needs it: which words it can say. */
export interface Lexicon {
  has(word: string): boolean;
}

export interface Words {
  /** Dictionary words, lower case, in order. */
  words: string[];
  /** Words of the text the dictionary lacks (lower case): left out of `words`. */
  unknown: string[];
}

/** Longest phrase or name turned into words: a phrase, not a document. */
const MAX_PHRASE_CHARS = 200;

/**
 * Text as spoken words, in order: digits spelled out ("3" -> "three", "350,000" -> "three hundred
 * fifty thousand", "2.5" -> "two point five", "$5" -> "five dollars", "10:30" -> "ten thirty"),
 * "a.m."/"p.m." as letters, punctuation dropped, apostrophes inside words kept. Case is kept (an
 * acronym is told by it); `’` counts as an apostrophe.
 */
export function spokenTokens(text: string): string[] {
  const clean = text
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\b([ap])\.m\./gi, '$1 m')
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\$(\d+(?:\.\d+)?)/g, '$1 dollars')
    .replace(/(\d)\.(\d)/g, '$1 point $2')
    .replace(/\b(\d{1,2}):00\b/g, "$1 o'clock")
    .replace(/\b(\d{1,2}):0(\d)\b/g, '$1 oh $2')
    .replace(/\b(\d{1,2}):(\d\d)\b/g, '$1 $2')
    .replace(/&/g, ' and ')
    .replace(/%/g, ' percent ')
    .replace(/(\d)([a-z])/gi, '$1 $2');
  const tokens: string[] = [];
  for (const raw of clean.split(/[^A-Za-z0-9']+/)) {
    const token = raw.replace(/^'+|'+$/g, '');
    if (!token) continue;
    if (/^\d+$/.test(token)) tokens.push(...spellDigits(token));
    else tokens.push(token);
  }
  return tokens;
}

/**
 * A phrase or name as dictionary words (see spokenTokens), short capitalised acronyms ("HOA")
 * spelled letter by letter when the dictionary does not know them as a word; any other unknown
 * word is left out and reported.
 */
export function toWords(text: string, lexicon: Lexicon): Words {
  const words: string[] = [];
  const unknown: string[] = [];
  for (const token of spokenTokens(text.slice(0, MAX_PHRASE_CHARS))) {
    const word = token.toLowerCase();
    if (lexicon.has(word)) words.push(word);
    else if (/^[A-Z]{2,5}$/.test(token) && [...word].every((letter) => lexicon.has(letter)))
      words.push(...word);
    else unknown.push(word);
  }
  return { words, unknown };
}
