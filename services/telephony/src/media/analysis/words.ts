import { FRAME_MS } from './frame-features';

// Words as AMD counts them: runs of voiced frames of at least `minWordMs`, separated by pauses of
// at least `betweenWordsMs`. Shorter pauses stay inside a word; shorter runs (a click) are no word.

export class WordCounter {
  #words = 0;
  #voicedMs = 0;
  #inWord = false;
  #runMs = 0;
  #runStartMs: number | undefined;
  #pauseMs = 0;
  #lastVoicedEndMs = 0;
  #firstWordStartMs: number | undefined;
  #lastWordEndMs: number | undefined;

  constructor(
    private readonly minWordMs: number,
    private readonly betweenWordsMs: number,
  ) {}

  get words(): number {
    return this.#words;
  }

  /** Voiced time inside words. */
  get voicedMs(): number {
    return this.#voicedMs;
  }

  /** Inside a word, or a run that may become one: the classifier's lower (holding) margin applies. */
  get holding(): boolean {
    return this.#inWord || this.#runMs > 0;
  }

  get inWord(): boolean {
    return this.#inWord;
  }

  get firstWordStartMs(): number | undefined {
    return this.#firstWordStartMs;
  }

  /** The end of the last voiced frame of the last finished word. */
  get lastWordEndMs(): number | undefined {
    return this.#lastWordEndMs;
  }

  push(voiced: boolean, atMs: number): void {
    if (voiced) {
      this.#runStartMs ??= atMs;
      this.#runMs += FRAME_MS;
      this.#pauseMs = 0;
      this.#lastVoicedEndMs = atMs + FRAME_MS;
      if (this.#inWord) {
        this.#voicedMs += FRAME_MS;
      } else if (this.#runMs >= this.minWordMs) {
        this.#inWord = true;
        this.#words++;
        this.#voicedMs += this.#runMs;
        this.#firstWordStartMs ??= this.#runStartMs;
      }
      return;
    }
    this.#pauseMs += FRAME_MS;
    if (this.#pauseMs < this.betweenWordsMs) return;
    if (this.#inWord) this.#lastWordEndMs = this.#lastVoicedEndMs;
    this.#inWord = false;
    this.#runMs = 0;
    this.#runStartMs = undefined;
  }
}
