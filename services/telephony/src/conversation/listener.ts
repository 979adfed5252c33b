import { performance } from 'node:perf_hooks';
import { VoiceActivityDetector } from '../media/analysis';
import type { Expectation, Recognition, RecognitionStream, SpeechRecognizer } from './types';

/** What the listener noticed in a frame of the callee's audio. */
export type HeardEvent =
  /** The callee began talking (`atMs`: when, back-dated to the onset). */
  | { type: 'start'; atMs: number; at: Date }
  /** They stopped: the utterance's text follows (the recogniser's promise never rejects). */
  | { type: 'end'; atMs: number; startedAt: Date; text: Promise<Recognition | null> }
  /** What began was too short to be words (a cough, a click): nothing to recognise. */
  | { type: 'dropped'; atMs: number };

/**
 * The callee's side: voice activity and end of utterance over the call's 20 ms frames, each
 * utterance streamed into a recogniser prepared in advance with what the agent expects to hear.
 */
export class Listener {
  readonly #vad: VoiceActivityDetector;
  #expect: Expectation = { slots: [], phrases: [] };
  #ready: RecognitionStream | undefined;
  #current: RecognitionStream | undefined;
  #startedAt = new Date();
  /** Quiet frames of the utterance not yet written: only the first of them go out if it ends here. */
  #tail: Int16Array[] = [];

  constructor(
    private readonly stt: SpeechRecognizer | null,
    private readonly request: { language: string; names: readonly string[] },
    private readonly observe: { recognised?(ms: number): void; failed?(error: unknown): void } = {},
    vad?: VoiceActivityDetector,
  ) {
    this.#vad = vad ?? new VoiceActivityDetector();
  }

  get inSpeech(): boolean {
    return this.#vad.inSpeech;
  }

  /** What the next utterance is heard against; its recogniser starts now, off the turn's latency. */
  expect(expect: Expectation): void {
    this.#expect = expect;
    this.#ready?.cancel();
    this.#ready = this.#open();
  }

  /** Stops recognising what is being said (an answering machine's greeting is not the callee). */
  ignoreCurrent(): void {
    this.#current?.cancel();
    this.#current = undefined;
  }

  push(frame: Int16Array, atMs: number = performance.now()): HeardEvent | undefined {
    const event = this.#vad.push(frame, atMs);
    if (!event) {
      if (this.#vad.inSpeech) this.#utter(frame);
      return undefined;
    }
    if (event.type === 'speech_start') {
      this.#startedAt = new Date(Date.now() - (atMs - event.atMs));
      this.#current = this.#ready ?? this.#open();
      this.#ready = undefined;
      this.#tail = [];
      this.#current?.write(event.preRoll);
      return { type: 'start', atMs: event.atMs, at: this.#startedAt };
    }
    const stream = this.#current;
    this.#current = undefined;
    for (const quiet of this.#tail.splice(0).slice(0, TAIL_KEPT_FRAMES)) stream?.write(quiet);
    if (event.dropped) {
      // A recogniser already fed the noise cannot be reused: a fresh one waits for real speech.
      stream?.cancel();
      this.#ready ??= this.#open();
      return { type: 'dropped', atMs: event.atMs };
    }
    // The next utterance may follow before the agent answers: have a recogniser ready for it.
    this.#ready ??= this.#open();
    return { type: 'end', atMs: event.atMs, startedAt: this.#startedAt, text: this.#finish(stream) };
  }

  /**
   * The end-of-utterance wait is mostly silence, often digital zero on a clean line: pocketsphinx
   * decoding that much of it makes up words (measured: "what is this about" became "bye david
   * here yeah um"). Quiet frames wait; speech after them sends them on; at the end, a little goes.
   */
  #utter(frame: Int16Array): void {
    if (rms(frame) < QUIET_RMS) {
      this.#tail.push(frame);
      return;
    }
    for (const quiet of this.#tail.splice(0)) this.#current?.write(quiet);
    this.#current?.write(frame);
  }

  close(): void {
    this.#ready?.cancel();
    this.#current?.cancel();
    this.#ready = this.#current = undefined;
  }

  #open(): RecognitionStream | undefined {
    if (!this.stt) return undefined;
    try {
      return this.stt.open({ ...this.request, expect: this.#expect });
    } catch (error) {
      this.observe.failed?.(error);
      return undefined;
    }
  }

  async #finish(stream: RecognitionStream | undefined): Promise<Recognition | null> {
    if (!stream) return null;
    const started = performance.now();
    try {
      const result = await stream.finish();
      this.observe.recognised?.(performance.now() - started);
      return result;
    } catch (error) {
      this.observe.failed?.(error);
      return null;
    }
  }
}

/** Below about -44 dBFS a frame is quiet (line noise, or the digital silence of a clean line). */
const QUIET_RMS = 200;
/** Quiet kept after the last speech of an utterance: 200 ms, enough for a word's fading end. */
const TAIL_KEPT_FRAMES = 10;

function rms(frame: Int16Array): number {
  let sum = 0;
  for (const sample of frame) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, frame.length));
}
