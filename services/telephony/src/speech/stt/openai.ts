import wavefile from 'wavefile';
import {
  type Recognition,
  type RecognitionRequest,
  type RecognitionStream,
  SpeechError,
  type SpeechRecognizer,
} from '../../conversation/types';
import { recognitionFromResponse, TranscriptionResponseError } from './domain/transcription-response';

export interface OpenAiTranscriberOptions {
  /** e.g. `https://api.openai.com/v1`, or any server speaking the same API. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never logged or put in an error. */
  apiKey?: string | null;
  /** `whisper-1`, `gpt-4o-transcribe`, a local server's model name ... */
  model: string;
  /** `verbose_json` (the default) gives per-segment log probabilities; some models take `json` only. */
  responseFormat?: 'verbose_json' | 'json';
  /** Primary language codes the model is trusted with (`en`, `es` ...); default: any. */
  languages?: readonly string[];
  /** One request, from finish() to the parsed answer (15 s). */
  timeoutMs?: number;
  /** Audio kept per utterance; the rest is dropped (30 s: 480 KB of WAV). */
  maxUtteranceMs?: number;
  /** Largest response body read (1 MB). */
  maxResponseBytes?: number;
}

const SAMPLE_RATE = 8000;
/** A hint to the model: the turn's names and phrases, as long as the prompt may usefully be. */
const MAX_PROMPT_CHARS = 400;

/**
 * Speech recognition by an OpenAI-compatible `POST {baseUrl}/audio/transcriptions`. It has nothing
 * to prepare, so open() is free; finish() sends the whole utterance as an 8 kHz 16-bit mono WAV
 * (built with `wavefile`) in a multipart form and reads the transcript.
 */
export class OpenAiTranscriber implements SpeechRecognizer {
  readonly name = 'openai';
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiTranscriberOptions) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  }

  supports(language: string): boolean {
    const primary = primaryLanguage(language);
    if (!/^[a-z]{2,3}$/.test(primary)) return false;
    return this.options.languages === undefined || this.options.languages.includes(primary);
  }

  open(request: RecognitionRequest): RecognitionStream {
    if (!this.supports(request.language)) {
      throw new SpeechError(
        `${this.options.model} is not configured for ${JSON.stringify(request.language)}`,
      );
    }
    return new TranscriptionStream(this.endpoint, this.options, request);
  }
}

function primaryLanguage(language: string): string {
  return language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

class TranscriptionStream implements RecognitionStream {
  private readonly chunks: Int16Array[] = [];
  private samples = 0;
  private readonly maxSamples: number;
  private readonly abort = new AbortController();
  private done = false;

  constructor(
    private readonly endpoint: string,
    private readonly options: OpenAiTranscriberOptions,
    private readonly request: RecognitionRequest,
  ) {
    this.maxSamples = Math.round(((options.maxUtteranceMs ?? 30_000) / 1000) * SAMPLE_RATE);
  }

  write(pcm: Int16Array): void {
    if (this.done) return;
    const room = this.maxSamples - this.samples;
    if (room <= 0) return;
    const kept = pcm.slice(0, room);
    this.chunks.push(kept);
    this.samples += kept.length;
  }

  async finish(): Promise<Recognition> {
    if (this.done) throw new SpeechError('recognition was cancelled or already finished');
    this.done = true;
    if (this.samples === 0) return { text: '', confidence: 0 };
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const timer = setTimeout(
      () => this.abort.abort(new SpeechError(`no transcript within ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
        body: this.form(),
        signal: this.abort.signal,
      });
      const body = await readBounded(response, this.options.maxResponseBytes ?? 1024 * 1024);
      if (!response.ok) {
        const message = redact(errorMessage(body), this.options.apiKey);
        throw new SpeechError(`transcription endpoint answered ${response.status}: ${message}`);
      }
      return recognitionFromResponse(JSON.parse(body));
    } catch (err) {
      throw asSpeechError(err, this.abort.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  cancel(): void {
    this.done = true;
    this.chunks.length = 0;
    this.abort.abort(new SpeechError('recognition was cancelled'));
  }

  private form(): FormData {
    const pcm = new Int16Array(this.samples);
    let at = 0;
    for (const chunk of this.chunks) {
      pcm.set(chunk, at);
      at += chunk.length;
    }
    const wav = new wavefile.WaveFile();
    wav.fromScratch(1, SAMPLE_RATE, '16', pcm);
    const form = new FormData();
    form.set('file', new Blob([wav.toBuffer()], { type: 'audio/wav' }), 'utterance.wav');
    form.set('model', this.options.model);
    form.set('language', primaryLanguage(this.request.language));
    form.set('response_format', this.options.responseFormat ?? 'verbose_json');
    const prompt = [...this.request.names, ...this.request.expect.phrases]
      .join(', ')
      .slice(0, MAX_PROMPT_CHARS);
    if (prompt) form.set('prompt', prompt);
    return form;
  }
}

/** The body as text, refusing more than `max` bytes (an answer is a few hundred). */
async function readBounded(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new SpeechError(`transcription response larger than ${max} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The server's own words for an error (`{"error":{"message"}}`), short and on one line. */
function errorMessage(body: string): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    if (typeof parsed.error === 'string') message = parsed.error;
    else if (typeof parsed.error?.message === 'string') message = parsed.error.message;
  } catch {
    // not JSON: the text itself
  }
  return message.replace(/\s+/g, ' ').trim().slice(0, 200) || '(no message)';
}

/** The message without the API key, should the server quote it back (whole or in part). */
function redact(message: string, key: string | null | undefined): string {
  if (!key || key.length < 8) return message;
  let clean = message.split(key).join('[key]');
  // A masked echo ("sk-abc***xyz") still shows pieces: drop any 6+ character run of the key.
  for (let at = 0; at + 6 <= key.length; at++) clean = clean.split(key.slice(at, at + 6)).join('[key]');
  return clean.replace(/(\[key\][^\s]*)+/g, '[key]');
}

function asSpeechError(err: unknown, signal: AbortSignal): SpeechError {
  if (signal.aborted && signal.reason instanceof SpeechError) return signal.reason;
  if (err instanceof SpeechError) return err;
  if (err instanceof SyntaxError || err instanceof TranscriptionResponseError) {
    return new SpeechError(`transcription endpoint sent an unreadable answer: ${err.message}`);
  }
  return new SpeechError(`transcription endpoint unreachable: ${(err as Error).message}`);
}
