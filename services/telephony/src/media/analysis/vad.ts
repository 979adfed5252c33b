import { FRAME_MS, FRAME_SAMPLES } from './frame-features';
import { SpeechFrameClassifier } from './speech-frames';

// Voice activity of the callee, frame by frame: when an utterance starts (quickly, for barge-in)
// and when it ends (after a hangover of silence, for end of utterance).

export interface VadOptions {
  /** Speech this long starts an utterance; default 60 (3 frames; one unvoiced frame among them is forgiven). */
  onsetMs?: number;
  /** Silence this long ends it (end of utterance); default 700. */
  hangoverMs?: number;
  /** Audio kept from before the onset, handed over with speech_start; default 240. */
  preRollMs?: number;
  /** Shorter bursts (a click, a cough) end with `dropped: true`; default 150. */
  minUtteranceMs?: number;
}

export type VadEvent =
  | {
      type: 'speech_start';
      /** When speech began: the first voiced frame of the onset (the onset is back-dated). */
      atMs: number;
      /**
       * The audio from `preRollMs` before that frame up to and including the frame just pushed:
       * write it to the recogniser, then every later frame until speech_end.
       */
      preRoll: Int16Array;
    }
  | {
      type: 'speech_end';
      /** The end of the last voiced frame. */
      atMs: number;
      durationMs: number;
      /**
       * Shorter than `minUtteranceMs`: a click or a cough, not an utterance. speech_start was
       * already reported (barge-in cannot wait), so the engine discards what it recorded.
       */
      dropped: boolean;
    };

const frames = (ms: number) => Math.max(1, Math.round(ms / FRAME_MS));

/**
 * Energy-based VAD over an adaptive noise floor (see SpeechFrameClassifier). Frames are the RTP
 * session's 20 ms; `atMs` is the caller's monotonic clock at the start of each frame (passing the
 * time a frame arrived instead shifts every reported time by one frame, which nothing relies on).
 */
export class VoiceActivityDetector {
  readonly #classifier = new SpeechFrameClassifier();
  readonly #onsetFrames: number;
  readonly #preRollFrames: number;
  readonly #minUtteranceMs: number;
  #hangoverMs: number;
  /** The last frames heard (pre-roll and onset window), as a ring of FRAME_SAMPLES slots. */
  readonly #ring: Int16Array;
  readonly #ringFrames: number;
  /** Voiced flags and stamps of the last onset window (onsetFrames + 1 frames). */
  readonly #voiced: boolean[];
  readonly #stamps: number[];
  #heard = 0;
  #inSpeech = false;
  #startMs = 0;
  #lastVoicedEndMs = 0;

  constructor(options: VadOptions = {}) {
    this.#onsetFrames = frames(options.onsetMs ?? 60);
    this.#preRollFrames = Math.max(0, Math.round((options.preRollMs ?? 240) / FRAME_MS));
    this.#minUtteranceMs = options.minUtteranceMs ?? 150;
    this.#hangoverMs = options.hangoverMs ?? 700;
    this.#ringFrames = this.#preRollFrames + this.#onsetFrames + 1;
    this.#ring = new Int16Array(this.#ringFrames * FRAME_SAMPLES);
    this.#voiced = new Array<boolean>(this.#onsetFrames + 1).fill(false);
    this.#stamps = new Array<number>(this.#onsetFrames + 1).fill(0);
  }

  get inSpeech(): boolean {
    return this.#inSpeech;
  }

  /** The current noise floor in dBFS (for logs and AMD). */
  get noiseFloorDb(): number {
    return this.#classifier.floorDb;
  }

  /** Changes the end-of-utterance silence from the next frame on (a short answer is expected, say). */
  setHangover(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`hangover must be a non-negative number of ms, got ${ms}`);
    this.#hangoverMs = ms;
  }

  push(frame: Int16Array, atMs: number): VadEvent | undefined {
    const { voiced } = this.#classifier.classify(frame, this.#inSpeech);
    const slot = this.#heard % this.#ringFrames;
    this.#ring.set(frame, slot * FRAME_SAMPLES);
    const w = this.#heard % this.#voiced.length;
    this.#voiced[w] = voiced;
    this.#stamps[w] = atMs;
    this.#heard++;
    return this.#inSpeech ? this.#continue(voiced, atMs) : this.#onset(voiced);
  }

  /** Forgets everything heard, the noise floor included (a new call, or after a long pause of listening). */
  reset(): void {
    this.#classifier.reset();
    this.#heard = 0;
    this.#inSpeech = false;
    this.#voiced.fill(false);
  }

  #onset(voiced: boolean): VadEvent | undefined {
    if (!voiced) return undefined;
    // Speech needs onsetFrames voiced frames in the last onsetFrames + 1: quick, yet one noisy
    // frame (a click) never starts it and one weak frame inside a real onset does not stop it.
    const window = Math.min(this.#voiced.length, this.#heard);
    let count = 0;
    let first = -1;
    for (let back = window - 1; back >= 0; back--) {
      const i = (this.#heard - 1 - back) % this.#voiced.length;
      if (this.#voiced[i]) {
        count++;
        if (first < 0) first = back;
      }
    }
    if (count < this.#onsetFrames) return undefined;
    const firstIndex = (this.#heard - 1 - first) % this.#voiced.length;
    this.#inSpeech = true;
    this.#startMs = this.#stamps[firstIndex]!;
    this.#lastVoicedEndMs = this.#stamps[(this.#heard - 1) % this.#voiced.length]! + FRAME_MS;
    return { type: 'speech_start', atMs: this.#startMs, preRoll: this.#preRoll(first + 1) };
  }

  #continue(voiced: boolean, atMs: number): VadEvent | undefined {
    if (voiced) {
      this.#lastVoicedEndMs = atMs + FRAME_MS;
      return undefined;
    }
    if (atMs + FRAME_MS - this.#lastVoicedEndMs < this.#hangoverMs) return undefined;
    this.#inSpeech = false;
    this.#voiced.fill(false);
    const durationMs = this.#lastVoicedEndMs - this.#startMs;
    return {
      type: 'speech_end',
      atMs: this.#lastVoicedEndMs,
      durationMs,
      dropped: durationMs < this.#minUtteranceMs,
    };
  }

  /** The last `onsetFrames` frames plus up to preRollFrames before them, oldest first. */
  #preRoll(onsetFrames: number): Int16Array {
    const count = Math.min(this.#heard, onsetFrames + this.#preRollFrames);
    const out = new Int16Array(count * FRAME_SAMPLES);
    for (let k = 0; k < count; k++) {
      const slot = (this.#heard - count + k) % this.#ringFrames;
      out.set(this.#ring.subarray(slot * FRAME_SAMPLES, (slot + 1) * FRAME_SAMPLES), k * FRAME_SAMPLES);
    }
    return out;
  }
}
