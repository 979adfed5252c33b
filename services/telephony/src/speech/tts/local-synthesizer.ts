import { SpeechError, type SpeechSynthesizer, type SynthesisRequest } from '../../conversation/types';
import { ChunkQueue } from './chunk-queue';
import { runEngine } from './engines';
import { DEFAULT_SEGMENTS, type SegmentOptions, speechSegments } from './segments';
import { planVoice, type VoicePlan } from './voice-map';

export interface LocalSynthesizerOptions {
  /** How the text is cut into pieces (the first one small); by default as suits the plan's first engine. */
  segments?: SegmentOptions;
  /** Longest an engine may take for one piece (default 10 s; a sentence takes 20-300 ms). */
  segmentTimeoutMs?: number;
  /** Longer text is refused (default 10,000 characters: the longest flow a call can carry). */
  maxTextChars?: number;
  /** Most audio one text may make (default 10 minutes). */
  maxSeconds?: number;
  /** espeak-ng speaking rate; its own default (175 words per minute) when absent. */
  wordsPerMinute?: number;
}

/**
 * espeak-ng streams within a piece, its first audio 20-40 ms after it starts whatever the length:
 * sentences go together up to 1,000 characters, without a small first piece. Measured (p50 of 25,
 * three sentences, loaded machine): first chunk 37 ms as one piece, 42 ms with the first clause
 * alone; all of it 102 ms against 127 ms (each piece starts espeak-ng and sox again).
 */
const ESPEAK_SEGMENTS: SegmentOptions = { firstChars: 0, maxChars: 240, joinChars: 1000 };

interface Piece {
  chunks: ChunkQueue<Int16Array>;
  /** True once the piece is synthesised in full; false when it failed or was stopped. */
  done: Promise<boolean>;
}

/** Which engine speaks the next pieces (a failed one is not asked again), and what failed. */
interface Progress {
  attempt: number;
  failures: string[];
  samples: number;
}

/**
 * Speech from the local engines, espeak-ng and flite (Debian, no network): the text is cut into
 * pieces synthesised one after the other, each streamed as its engine produces it: for flite a
 * sentence a piece, the first clause alone (flite makes a piece whole before it writes any of it);
 * for espeak-ng, which streams within a piece, up to 1,000 characters a piece. A piece's engine runs to its end at its own pace, however slowly the listener takes
 * the audio (so its time bound measures the engine); the next piece starts as soon as it has, and
 * the one after only once the listener has reached the next: synthesis stays at most one piece
 * ahead, and a barge-in wastes little. An engine that fails hands over to the next of the plan.
 */
export class LocalSynthesizer implements SpeechSynthesizer {
  readonly name = 'local';
  readonly #segments: SegmentOptions | undefined;
  readonly #segmentTimeoutMs: number;
  readonly #maxTextChars: number;
  readonly #maxSamples: number;
  readonly #wordsPerMinute: number | undefined;

  constructor(options: LocalSynthesizerOptions = {}) {
    this.#segments = options.segments;
    this.#segmentTimeoutMs = options.segmentTimeoutMs ?? 10_000;
    this.#maxTextChars = options.maxTextChars ?? 10_000;
    this.#maxSamples = (options.maxSeconds ?? 600) * 8000;
    this.#wordsPerMinute = options.wordsPerMinute;
  }

  stream(request: SynthesisRequest): AsyncIterable<Int16Array> {
    return this.speak(request.text, planVoice(request.voice, request.language), request.signal);
  }

  /** Speech for `text` with the engine voices of `plan`, tried in order. */
  async *speak(text: string, plan: VoicePlan, signal?: AbortSignal): AsyncGenerator<Int16Array> {
    if (text.length > this.#maxTextChars) {
      throw new SpeechError(`text longer than ${this.#maxTextChars} characters`);
    }
    const segments =
      this.#segments ?? (plan.attempts[0]?.engine === 'flite' ? DEFAULT_SEGMENTS : ESPEAK_SEGMENTS);
    const pieces = speechSegments(text, plan.language, segments);
    if (signal?.aborted) return;
    // Ends this text's processes when the listener stops early, as the caller's signal does.
    const own = new AbortController();
    const stop = signal ? AbortSignal.any([signal, own.signal]) : own.signal;
    const progress: Progress = { attempt: 0, failures: [], samples: 0 };
    try {
      let next = pieces[0] === undefined ? undefined : this.#synthesise(pieces[0], plan, progress, stop);
      for (let i = 0; next && !stop.aborted; i++) {
        const piece: Piece = next;
        const following = pieces[i + 1];
        // The next piece starts once this one is made, while this one is still being heard.
        const after = piece.done.then((ok) =>
          ok && following !== undefined && !stop.aborted
            ? this.#synthesise(following, plan, progress, stop)
            : undefined,
        );
        yield* piece.chunks;
        next = await after;
      }
    } finally {
      own.abort();
    }
  }

  #synthesise(text: string, plan: VoicePlan, progress: Progress, stop: AbortSignal): Piece {
    const chunks = new ChunkQueue<Int16Array>(stop);
    const done = (async () => {
      for (; progress.attempt < plan.attempts.length; progress.attempt++) {
        const voice = plan.attempts[progress.attempt]!;
        const timeout = AbortSignal.timeout(this.#segmentTimeoutMs);
        let produced = 0;
        try {
          for await (const pcm of runEngine({
            text,
            voice,
            signal: AbortSignal.any([stop, timeout]),
            maxSamples: this.#maxSamples - progress.samples,
            wordsPerMinute: this.#wordsPerMinute,
          })) {
            produced += pcm.length;
            progress.samples += pcm.length;
            chunks.push(pcm);
          }
          chunks.end();
          return true;
        } catch (error) {
          if (stop.aborted) return false;
          const why = timeout.aborted
            ? `took longer than ${this.#segmentTimeoutMs} ms for ${text.length} characters`
            : (error as Error).message;
          progress.failures.push(`${voice.engine} (${voice.voice}): ${why}`);
          // Half a sentence already heard: another voice starting it again would be worse.
          if (produced > 0) break;
        }
      }
      chunks.fail(
        new SpeechError(
          `speech synthesis failed for language ${JSON.stringify(plan.language)}: ${progress.failures.join('; ')}`,
        ),
      );
      return false;
    })();
    return { chunks, done };
  }
}
