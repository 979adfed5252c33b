import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SpeechError } from '../src/conversation/types';
import { collectSpeech, OpenAiSpeech, type OpenAiSpeechOptions, SpeechHttpError } from '../src/speech/tts';

// No hosted speech model is reachable from here (no internet, no weights): this is a protocol test
// of the OpenAI-compatible `/audio/speech` adapter against a local HTTP server on loopback that
// checks the request and streams real speech (espeak-ng, resampled to 24 kHz by sox) back in chunks.

const KEY = 'sk-test-0123456789abcdef';
const TEXT = 'Hello, this is the voice platform calling about your appointment tomorrow.';

interface Received {
  path: string | undefined;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, received: Received) => Promise<void> | void;

let server: Server;
let baseUrl: string;
let handler: Handler;
const requests: Received[] = [];
/** 24 kHz 16-bit little-endian mono speech of TEXT, as the endpoint's `pcm` format is. */
let pcm24k: Buffer;

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(
    'sh',
    [
      '-c',
      `espeak-ng --stdout "$0" | sox -V1 -t wav - -t raw -e signed-integer -b 16 -c 1 -L - rate 24000`,
      TEXT,
    ],
    { encoding: 'buffer', maxBuffer: 10 * 1024 * 1024 },
  );
  pcm24k = stdout;
  server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const received = {
      path: req.url,
      authorization: req.headers.authorization,
      body: JSON.parse(raw) as Record<string, unknown>,
    };
    requests.push(received);
    await handler(req, res, received);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterEach(() => {
  requests.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

const speech = (options: Partial<OpenAiSpeechOptions> = {}) =>
  new OpenAiSpeech({ baseUrl, apiKey: KEY, model: 'tts-test', ...options });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `audio` in chunks of `size` bytes with a pause between them; waits for `gate` half-way. */
async function streamBack(res: ServerResponse, audio: Buffer, size: number, gate?: Promise<unknown>) {
  for (let at = 0; at < audio.length; at += size) {
    if (gate && at >= audio.length / 2) await gate;
    if (res.destroyed) return;
    res.write(audio.subarray(at, at + size));
    await pause(5);
  }
  res.end();
}

/** A WAV header as a streaming server writes it: sizes unknown, so at their maximum. */
function streamingWavHeader(): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(0xffffffff, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(24_000, 24);
  header.writeUInt32LE(48_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(0xffffffff, 40);
  return header;
}

describe('OpenAI-compatible speech', () => {
  it('streams the answer: audio comes out before the answer has ended, at 8 kHz, of the right length', async () => {
    let firstChunk!: () => void;
    const gotFirst = new Promise<void>((resolve) => {
      firstChunk = resolve;
    });
    let ended = false;
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      // The second half is sent only once the first audio is out of the adapter: an adapter that
      // waited for the whole answer would wait for ever (and the test would time out).
      await streamBack(res, pcm24k, 4800, gotFirst);
      ended = true;
    };
    const chunks: Int16Array[] = [];
    for await (const chunk of speech().stream({ text: TEXT, language: 'en', voice: 'aria' })) {
      if (chunks.length === 0) {
        expect(ended).toBe(false);
        firstChunk();
      }
      chunks.push(chunk);
    }
    expect(ended).toBe(true);
    expect(requests).toEqual([
      {
        path: '/v1/audio/speech',
        authorization: `Bearer ${KEY}`,
        body: { model: 'tts-test', input: TEXT, voice: 'nova', response_format: 'pcm' },
      },
    ]);
    const samples = (await collectSpeech(chunks)).length;
    // A third of the samples at 24 kHz, give or take the resampler's edges.
    expect(Math.abs(samples - pcm24k.length / 2 / 3)).toBeLessThan(100);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('reads the WAV format too, and maps voices as configured', async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      await streamBack(res, Buffer.concat([streamingWavHeader(), pcm24k]), 3000);
    };
    const pcm = await collectSpeech(
      speech({ format: 'wav', voices: { roger: 'echo' } }).stream({
        text: TEXT,
        language: 'en',
        voice: 'roger',
      }),
    );
    expect(requests[0]!.body).toMatchObject({ voice: 'echo', response_format: 'wav' });
    expect(Math.abs(pcm.length - pcm24k.length / 2 / 3)).toBeLessThan(100);
  });

  it('fails with the HTTP status and the error, never the key', async () => {
    handler = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request' },
        }),
      );
    };
    const error = await collectSpeech(speech().stream({ text: TEXT, language: 'en', voice: null })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SpeechHttpError);
    expect((error as SpeechHttpError).status).toBe(401);
    expect((error as Error).message).toBe(
      'speech endpoint answered HTTP 401: Incorrect API key provided: [key].',
    );
    expect(String((error as Error).stack)).not.toContain(KEY);
  });

  it('bounds the wait for an answer, the pauses in it and its size', async () => {
    handler = () => {}; // never answers
    await expect(
      collectSpeech(speech({ answerTimeoutMs: 300 }).stream({ text: TEXT, language: 'en', voice: null })),
    ).rejects.toThrow(/no answer within 300 ms/);

    handler = (_req, res) => {
      res.writeHead(200);
      res.write(pcm24k.subarray(0, 4800)); // then nothing more
    };
    await expect(
      collectSpeech(speech({ idleTimeoutMs: 300 }).stream({ text: TEXT, language: 'en', voice: null })),
    ).rejects.toThrow(/no audio for 300 ms/);

    handler = async (_req, res) => {
      res.writeHead(200);
      await streamBack(res, pcm24k, 48_000);
    };
    await expect(
      collectSpeech(speech({ maxSeconds: 1 }).stream({ text: TEXT, language: 'en', voice: null })),
    ).rejects.toThrow(/more than 1 s of audio/);
    await expect(
      collectSpeech(speech({ maxTextChars: 10 }).stream({ text: TEXT, language: 'en', voice: null })),
    ).rejects.toThrow(SpeechError);
  });

  it('stops at once when aborted: the stream ends and the request is dropped', async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    handler = async (_req, res) => {
      res.on('close', closed);
      res.writeHead(200);
      await streamBack(res, pcm24k, 4800, requestClosed);
    };
    const abort = new AbortController();
    const chunks: Int16Array[] = [];
    for await (const chunk of speech().stream({
      text: TEXT,
      language: 'en',
      voice: null,
      signal: abort.signal,
    })) {
      chunks.push(chunk);
      abort.abort();
    }
    expect(chunks).toHaveLength(1);
    await requestClosed;
  });
});
