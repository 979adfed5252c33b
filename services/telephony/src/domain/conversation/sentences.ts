// Streamed model text cut into sentences as they complete, so that speech starts on the first one
// while the rest is still being generated. Cleaned for speaking: markdown and emoji are not read.

/** Words ending in a full stop that do not end a sentence. */
const ABBREVIATIONS = /(?:^|\s)(mr|mrs|ms|dr|st|jr|sr|vs|etc|approx|e\.g|i\.e|[a-z])\.$/i;
/** A sentence running this long without an end is spoken anyway, cut at a comma or a space. */
const MAX_SENTENCE = 300;

/** Text as it is spoken: no markdown emphasis, headings, code ticks, link targets or emoji. */
export function speakable(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/([\p{L}\d])_(?=[\p{L}\d])/gu, '$1 ')
    .replace(/[*_`~]+/g, '')
    .replace(/[#>|]+/g, ' ')
    .replace(/\p{Extended_Pictographic}/gu, '')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.!?;:])/g, '$1')
    .trim();
}

export class SentenceSplitter {
  private buffer = '';

  /** Adds streamed text; returns the sentences it completed, in order. */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    for (;;) {
      const end = this.boundary();
      if (end < 0) break;
      const piece = speakable(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end);
      if (piece !== '') out.push(piece);
    }
    return out;
  }

  /** What is left at the end of the stream, or null. */
  flush(): string | null {
    const piece = speakable(this.buffer);
    this.buffer = '';
    return piece === '' ? null : piece;
  }

  /** Where the first complete sentence in the buffer ends; -1 when none has yet. */
  private boundary(): number {
    const re = /[.!?…]+["')\]]*(?=\s)|\n+/g;
    for (let m = re.exec(this.buffer); m; m = re.exec(this.buffer)) {
      const end = m.index + m[0].length;
      if (m[0].startsWith('.') && ABBREVIATIONS.test(this.buffer.slice(0, end))) continue;
      if (this.buffer.slice(0, end).trim() !== '') return end;
    }
    if (this.buffer.length <= MAX_SENTENCE) return -1;
    const head = this.buffer.slice(0, MAX_SENTENCE);
    const comma = head.lastIndexOf(', ');
    const space = head.lastIndexOf(' ');
    return comma > MAX_SENTENCE / 2 ? comma + 1 : space > 0 ? space : MAX_SENTENCE;
  }
}
