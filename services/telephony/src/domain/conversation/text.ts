// Word-level helpers shared by the parsers and the phrasing: recognised text is lower-case words,
// but the LLM adapter and tests hand in ordinary sentences, so both are normalised the same way.

/** Lower-case words: apostrophes inside words stay ("that's"), other punctuation separates. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^a-z0-9'@.:$,\s-]/g, ' ')
    .replace(/(^|\s)'+|'+(\s|$)/g, ' ')
    .replace(/[.,:](\s|$)/g, ' ')
    .replace(/(^|\s)-+|-+(\s|$)/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '');
}

/** Where the words of `phrase` first occur in a row inside `tokens`; -1 when they do not. */
export function phraseAt(tokens: readonly string[], phrase: readonly string[], from = 0): number {
  if (phrase.length === 0) return -1;
  outer: for (let i = from; i + phrase.length <= tokens.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (tokens[i + j] !== phrase[j]) continue outer;
    return i;
  }
  return -1;
}

/** The phrases as word lists, longest first (so "not interested" is tried before "no"). */
export function phraseTable(phrases: readonly string[]): string[][] {
  return phrases.map((p) => words(p)).sort((a, b) => b.length - a.length);
}

/** Whether any phrase of the table occurs in `tokens`. */
export function hasAnyPhrase(tokens: readonly string[], table: readonly (readonly string[])[]): boolean {
  return table.some((phrase) => phraseAt(tokens, phrase) >= 0);
}

/** `tokens` with every occurrence of the table's phrases removed (longest phrases first). */
export function withoutPhrases(tokens: readonly string[], table: readonly (readonly string[])[]): string[] {
  let rest = [...tokens];
  for (const phrase of table) {
    for (let at = phraseAt(rest, phrase); at >= 0; at = phraseAt(rest, phrase)) {
      rest = [...rest.slice(0, at), ...rest.slice(at + phrase.length)];
    }
  }
  return rest;
}

export const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
export const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** `s` cut to at most `max` characters at a word boundary, with no trailing punctuation left dangling. */
export function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : flat.slice(0, max)).replace(/[\s,;:–-]+$/, '');
}

/** A sentence ends with punctuation: adds a full stop when it has none. */
export function sentence(s: string): string {
  const t = s.trim();
  return t === '' || /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Non-empty pieces joined into one utterance, each a full sentence. */
export function joinSpoken(...pieces: readonly (string | null | undefined)[]): string {
  return pieces
    .map((p) => (p ? sentence(p) : ''))
    .filter((p) => p !== '')
    .join(' ');
}

/** "a, b or c" */
export function spokenList(items: readonly string[], conjunction = 'or'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
}

/** A snake_case key as words: `preferred_location` -> "preferred location". */
export const humanise = (key: string): string => key.replace(/_/g, ' ').trim();
