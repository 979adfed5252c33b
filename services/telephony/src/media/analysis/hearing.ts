import type { AmdThresholds } from '../../domain/amd';
import { BeepDetector, type BeepEvent } from './beep';
import { FRAME_MS } from './frame-features';
import { SpeechFrameClassifier } from './speech-frames';
import { WordCounter } from './words';

/**
 * What AMD and the voicemail waiter listen with: speech frames counted as words, and the beep
 * detector. One object, so the waiter can carry on from where detection stopped (mid-word, mid-beep).
 */
export class Hearing {
  readonly classifier = new SpeechFrameClassifier();
  readonly words: WordCounter;
  readonly beep = new BeepDetector();
  #firstMs: number | undefined;
  #endMs = 0;

  constructor(thresholds: Pick<AmdThresholds, 'minWordMs' | 'betweenWordsMs'>) {
    this.words = new WordCounter(thresholds.minWordMs, thresholds.betweenWordsMs);
  }

  /** The start of the first frame heard. */
  get firstMs(): number | undefined {
    return this.#firstMs;
  }

  /** The end of the last frame heard. */
  get endMs(): number {
    return this.#endMs;
  }

  hear(frame: Int16Array, atMs: number): BeepEvent | undefined {
    this.#firstMs ??= atMs;
    this.#endMs = atMs + FRAME_MS;
    const { voiced } = this.classifier.classify(frame, this.words.holding);
    this.words.push(voiced, atMs);
    return this.beep.push(frame, atMs);
  }
}
