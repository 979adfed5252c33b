import { readFile, stat } from 'node:fs/promises';
import { SpeechError } from '../../conversation/types';
import type { Lexicon } from './domain/words';

/** cmudict-en-us.dict is 3.6 MB; anything far larger is not a pronunciation dictionary. */
const MAX_DICTIONARY_BYTES = 32 * 1024 * 1024;
const LINES_PER_SLICE = 2000;

/** A pocketsphinx pronunciation dictionary in memory: which words it has, and their lines. */
export class PronunciationDictionary implements Lexicon {
  private constructor(private readonly entries: ReadonlyMap<string, string>) {}

  static async load(file: string): Promise<PronunciationDictionary> {
    let text: string;
    try {
      const { size } = await stat(file);
      if (size > MAX_DICTIONARY_BYTES) throw new Error(`${size} bytes, more than ${MAX_DICTIONARY_BYTES}`);
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new SpeechError(
        `pocketsphinx dictionary ${file} is unusable (${(err as Error).message}): install pocketsphinx-en-us`,
      );
    }
    // "word PH ON EMES" and alternates "word(2) ...": kept whole, grouped by word, in file order.
    // Parsed in slices, yielding between them: 126,000 entries took 130-490 ms, too long to hold
    // the event loop of a process that paces RTP every 20 ms.
    const entries = new Map<string, string>();
    const lines = text.split('\n');
    for (let at = 0; at < lines.length; at += LINES_PER_SLICE) {
      for (const line of lines.slice(at, at + LINES_PER_SLICE)) {
        const match = /^([^\s(]+)(?:\(\d+\))?\s+\S/.exec(line);
        if (!match) continue;
        const word = match[1]!;
        const previous = entries.get(word);
        entries.set(word, previous === undefined ? line.trimEnd() : `${previous}\n${line.trimEnd()}`);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (entries.size === 0) throw new SpeechError(`pocketsphinx dictionary ${file} has no entries`);
    return new PronunciationDictionary(entries);
  }

  has(word: string): boolean {
    return this.entries.has(word);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The dictionary of just `words` (all pronunciations of each), for a decoder that loads fast. */
  subset(words: Iterable<string>): string {
    const lines: string[] = [];
    for (const word of words) {
      const entry = this.entries.get(word);
      if (entry !== undefined) lines.push(entry);
    }
    return `${lines.join('\n')}\n`;
  }
}

const loaded = new Map<string, Promise<PronunciationDictionary>>();

/** The dictionary at `file`, read once per process (a failed read is retried next time). */
export function loadDictionary(file: string): Promise<PronunciationDictionary> {
  let dictionary = loaded.get(file);
  if (!dictionary) {
    dictionary = PronunciationDictionary.load(file);
    loaded.set(file, dictionary);
    dictionary.catch(() => loaded.delete(file));
  }
  return dictionary;
}
