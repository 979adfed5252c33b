import { once } from 'node:events';
import { SpeechError, type SpeechSynthesizer, type SynthesisRequest } from '../../conversation/types';
import { ChunkQueue } from './chunk-queue';
import { pcmOf, startResampler } from './tools';
import { type Gender, voiceGender } from './voice-map';

export interface OpenAiSpeechOptions {
  /** The API's base, `/audio/speech` is added to it (`https://host/v1`). */
  baseUrl: string;
  /** Sent as a bearer token; never logged nor put in an error. */
  apiKey?: string | undefined;
  model: string;
  /** The agent's voice ids to the endpoint's voices; others by the voice's gender (nova, onyx, alloy). */
  voices?: Readonly<Record<string, string>>;
  /** `pcm`: 24 kHz 16-bit little-endian mono, headerless (default); `wav`: the same in a WAV. */
  format?: 'pcm' | 'wav';
  /** Longest wait for the answer's status and headers (default 15 s). */
  answerTimeoutMs?: number;
  /** Longest pause between two pieces of the audio (default 10 s). */
  idleTimeoutMs?: number;
  /** Longest one text may take in all (default 120 s). */
  totalTimeoutMs?: number;
  /** Longer text is refused (default 4096, the OpenAI API's own limit). */
  maxTextChars?: number;
  /** Most audio one text may make (default 10 minutes). */
  maxSeconds?: number;
}

/** The endpoint answered with an error status (`status`), or not at all (`status` null). */
export class SpeechHttpError extends SpeechError {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

const VOICE_BY_GENDER: Readonly<Record<Gender, string>> = { female: 'nova', male: 'onyx', neutral: 'alloy' };
const PCM_RATE = 24_000;

/**
 * Speech from any OpenAI-compatible `/audio/speech` endpoint. The answer is streamed: its audio is
 * resampled to 8 kHz by sox as the bytes arrive, and handed on at once. Every answer is untrusted:
 * bounded in time (to the answer, between pieces, in all) and in size.
 */
export class OpenAiSpeech implements SpeechSynthesizer {
  readonly name = 'openai';
  readonly #options: OpenAiSpeechOptions;
  readonly #url: URL;

  constructor(options: OpenAiSpeechOptions) {
    this.#options = options;
    this.#url = new URL(
      'audio/speech',
      options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`,
    );
  }

  stream(request: SynthesisRequest): AsyncIterable<Int16Array> {
    return this.#stream(request);
  }

  async *#stream(request: SynthesisRequest): AsyncGenerator<Int16Array> {
    const maxText = this.#options.maxTextChars ?? 4096;
    if (request.text.length > maxText) throw new SpeechError(`text longer than ${maxText} characters`);
    if (!/[\p{L}\p{N}]/u.test(request.text) || request.signal?.aborted) return;
    const own = new AbortController();
    const stop = request.signal ? AbortSignal.any([request.signal, own.signal]) : own.signal;
    const chunks = new ChunkQueue<Int16Array>(stop);
    void this.#fetch(request, chunks, stop);
    try {
      yield* chunks;
    } finally {
      own.abort();
    }
  }

  /** Fetches the speech into `chunks` as it comes; fails them with a SpeechError. */
  async #fetch(request: SynthesisRequest, chunks: ChunkQueue<Int16Array>, stop: AbortSignal): Promise<void> {
    const o = this.#options;
    const http = new AbortController();
    const abort = () => http.abort();
    stop.addEventListener('abort', abort, { once: true });
    // Why the answer was cut off, when it was by us: said instead of fetch's "aborted".
    let timedOut: string | undefined;
    let failure: Error | undefined;
    const limit = (ms: number, what: string) =>
      setTimeout(() => {
        timedOut = what;
        http.abort();
      }, ms);
    const total = limit(
      o.totalTimeoutMs ?? 120_000,
      `no whole answer within ${o.totalTimeoutMs ?? 120_000} ms`,
    );
    let idle = limit(o.answerTimeoutMs ?? 15_000, `no answer within ${o.answerTimeoutMs ?? 15_000} ms`);
    const sox = new AbortController();
    try {
      const response = await fetch(this.#url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: o.model,
          input: request.text,
          voice: this.#voice(request.voice),
          response_format: o.format ?? 'pcm',
        }),
        // A redirect would carry the key elsewhere.
        redirect: 'error',
        signal: http.signal,
      });
      if (!response.ok || !response.body) {
        throw new SpeechHttpError(
          `speech endpoint answered HTTP ${response.status}${await this.#detail(response)}`,
          response.status,
        );
      }
      const maxSeconds = o.maxSeconds ?? 600;
      const resampler = startResampler(
        (o.format ?? 'pcm') === 'pcm'
          ? ['-t', 'raw', '-r', String(PCM_RATE), '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-']
          : ['-t', 'wav', '-'],
        AbortSignal.any([stop, sox.signal]),
      );
      const resampled = (async () => {
        for await (const pcm of pcmOf(resampler, maxSeconds * 8000)) chunks.push(pcm);
      })();
      resampled.catch((error: Error) => {
        failure = error; // sox failed or the audio is too long: stop reading the answer
        http.abort();
      });
      const maxBytes = maxSeconds * 48_000 * 2;
      let bytes = 0;
      const idleMs = o.idleTimeoutMs ?? 10_000;
      for await (const piece of response.body) {
        clearTimeout(idle);
        idle = limit(idleMs, `no audio for ${idleMs} ms`);
        bytes += piece.length;
        if (bytes > maxBytes)
          throw new SpeechHttpError(`speech endpoint sent more than ${maxSeconds} s of audio`, null);
        if (!resampler.child.stdin.write(piece)) await once(resampler.child.stdin, 'drain', { signal: stop });
      }
      clearTimeout(idle);
      resampler.child.stdin.end();
      await resampled;
      chunks.end();
    } catch (error) {
      if (stop.aborted) return;
      const why = failure ?? error;
      chunks.fail(
        why instanceof SpeechError
          ? why
          : new SpeechHttpError(timedOut ?? `speech endpoint failed: ${(why as Error).message}`, null),
      );
    } finally {
      clearTimeout(total);
      clearTimeout(idle);
      stop.removeEventListener('abort', abort);
      sox.abort();
    }
  }

  #voice(voice: string | null): string {
    const voices = this.#options.voices ?? {};
    const mapped = voice && Object.hasOwn(voices, voice) ? voices[voice] : undefined;
    return mapped ?? VOICE_BY_GENDER[voiceGender(voice) ?? 'neutral'];
  }

  /** A few words of an error answer (its JSON `error.message` when it has one), without the key. */
  async #detail(response: Response): Promise<string> {
    let text = '';
    const decoder = new TextDecoder();
    try {
      const reader = response.body?.getReader();
      while (reader && text.length < 2000) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await reader?.cancel();
    } catch {
      // what came is enough
    }
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } };
      if (typeof parsed.error?.message === 'string') message = parsed.error.message;
    } catch {
      // not JSON: the text itself
    }
    if (this.#options.apiKey) message = message.replaceAll(this.#options.apiKey, '[key]');
    message = message
      .replace(/\p{Cc}+/gu, ' ')
      .trim()
      .slice(0, 300);
    return message ? `: ${message}` : '';
  }
}
