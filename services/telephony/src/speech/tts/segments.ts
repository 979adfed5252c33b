// How a text is cut into pieces that are synthesised one after the other: the first one small, so
// that the first audio comes quickly; none too long, so that each is bounded in time. No I/O.

export interface SegmentOptions {
  /** A longer first sentence is cut at its first clause (a comma ...) within this many characters (0: never). */
  firstChars: number;
  /** No sentence piece is longer: a longer sentence is cut at clauses, then between words. */
  maxChars: number;
  /**
   * Sentences are joined into pieces of up to this many characters (the small first piece, when
   * there is one, stays alone; 0: one sentence a piece). For an engine that streams within a piece
   * (espeak-ng), fewer pieces save a start of the engine and of sox each; one that does not (flite)
   * is best a sentence at a time.
   */
  joinChars?: number;
}

/** A sentence a piece, the first clause of the first alone: for flite, which makes a piece whole. */
export const DEFAULT_SEGMENTS: SegmentOptions = { firstChars: 60, maxChars: 240 };

// Titles that end with a full stop inside a sentence: ICU's sentence breaker cuts after them.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'jr',
  'sr',
  'sra',
  'prof',
  'mme',
  'mlle',
  'hr',
  'fr',
]);

// A clause ends after one of these (and the space after it, for scripts that use spaces).
const CLAUSE_END = /[,;:\u2013\u2014\u3001\uff0c\uff1b\uff1a]\s*/gu;
const SPEAKABLE = /[\p{L}\p{N}]/u;

/** `text` as pieces to speak in order; empty when nothing in it can be spoken. */
export function speechSegments(
  text: string,
  language: string,
  options: SegmentOptions = DEFAULT_SEGMENTS,
): string[] {
  const clean = text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  const pieces = sentences(clean, language).flatMap((s) => bounded(s, options.maxChars));
  const first = pieces[0];
  if (first !== undefined && options.firstChars > 0 && first.length > options.firstChars) {
    pieces.splice(0, 1, ...firstClause(first, options.firstChars));
  }
  const speakable = pieces.map((p) => p.trim()).filter((p) => SPEAKABLE.test(p));
  return options.joinChars ? joined(speakable, options.joinChars, options.firstChars > 0) : speakable;
}

/** Pieces joined up to `max` characters; the first one left alone when it is to be small. */
function joined(pieces: string[], max: number, firstAlone: boolean): string[] {
  const out: string[] = [];
  for (const piece of pieces) {
    const last = out.length > (firstAlone ? 1 : 0) ? out[out.length - 1] : undefined;
    if (last !== undefined && last.length + 1 + piece.length <= max) out[out.length - 1] = `${last} ${piece}`;
    else out.push(piece);
  }
  return out;
}

/** Sentences by ICU's rules for the language, joined again after a title such as "Dr.". */
function sentences(text: string, language: string): string[] {
  let segmenter: Intl.Segmenter;
  try {
    segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
  } catch {
    segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  }
  const out: string[] = [];
  let pending = '';
  for (const { segment } of segmenter.segment(text)) {
    pending += segment;
    // Only the tail: the pattern on a long run of letters would backtrack for every start.
    const last = /(\p{L}+)\.$/u.exec(pending.trimEnd().slice(-8))?.[1];
    if (last && ABBREVIATIONS.has(last.toLowerCase())) continue;
    out.push(pending);
    pending = '';
  }
  if (pending) out.push(pending);
  return out;
}

/** A sentence cut into pieces of at most `max` characters: at clause ends, else between words. */
function bounded(sentence: string, max: number): string[] {
  if (sentence.length <= max) return [sentence];
  const out: string[] = [];
  let current = '';
  for (const clause of splitAfter(sentence, CLAUSE_END)) {
    if (current && current.length + clause.length > max) {
      out.push(current);
      current = '';
    }
    current += clause;
    while (current.length > max) {
      const cut = wordCut(current, max);
      out.push(current.slice(0, cut));
      current = current.slice(cut);
    }
  }
  if (current) out.push(current);
  return out;
}

/** The first sentence as a first small clause and the rest, when it has a clause end early on. */
function firstClause(sentence: string, firstChars: number): string[] {
  for (const match of sentence.matchAll(CLAUSE_END)) {
    const end = match.index + match[0].length;
    if (end > firstChars) break;
    if (SPEAKABLE.test(sentence.slice(end))) return [sentence.slice(0, end), sentence.slice(end)];
  }
  return [sentence];
}

function splitAfter(text: string, pattern: RegExp): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of text.matchAll(pattern)) {
    const end = match.index + match[0].length;
    out.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** Where to cut `text` at most `max` characters in: after the last space, or at `max` (no spaces). */
function wordCut(text: string, max: number): number {
  const space = text.lastIndexOf(' ', max);
  if (space > 0) return space + 1;
  // Not inside a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}
