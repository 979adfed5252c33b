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
      if (this.#vad.inSpeech) this.#current?.write(frame);
      return undefined;
    }
    if (event.type === 'speech_start') {
      this.#startedAt = new Date(Date.now() - (atMs - event.atMs));
      this.#current = this.#ready ?? this.#open();
      this.#ready = undefined;
      this.#current?.write(event.preRoll);
      return { type: 'start', atMs: event.atMs, at: this.#startedAt };
    }
    const stream = this.#current;
    this.#current = undefined;
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
