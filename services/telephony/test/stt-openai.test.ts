import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import wavefile from 'wavefile';
import { SpeechError } from '../src/conversation/types';
import {
  OPENAI_DEFAULT_CONFIDENCE,
  OpenAiTranscriber,
  type OpenAiTranscriberOptions,
} from '../src/speech/stt';
import { telephoneSpeech, writeFrames } from './stt-support';

// No hosted transcription model is reachable from here (no internet, no weights): this is a
// protocol test against a local HTTP server on loopback that checks the request the way the
// OpenAI /audio/transcriptions endpoint reads it and answers the way it answers.

const KEY = 'sk-test-secret-key-0123456789';

interface Received {
  authorization: string | undefined;
  fields: Record<string, string>;
  wav: {
    sampleRate: number;
    channels: number;
    bitDepth: string;
    samples: Int16Array;
    fileName: string;
    type: string;
  };
}

type Answer = (res: ServerResponse, received: Received) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function transcriptionServer(
  answer: Answer,
): Promise<{ url: string; requests: Received[]; closed: () => number }> {
  const requests: Received[] = [];
  let closedEarly = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    req.on('aborted', () => {
      closedEarly += 1;
    });
    res.on('close', () => {
      if (!res.writableFinished) closedEarly += 1;
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/transcriptions') {
      res.writeHead(404).end();
      return;
    }
    // The fetch standard's multipart parser reads the form as the real server would.
    const form = await new Request('http://loopback/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: Buffer.concat(chunks),
    }).formData();
    const fields: Record<string, string> = {};
    let wav: Received['wav'] | undefined;
    for (const [name, value] of form) {
      if (typeof value === 'string') fields[name] = value;
      else {
        const parsed = new wavefile.WaveFile(new Uint8Array(await value.arrayBuffer()));
        const fmt = parsed.fmt as { sampleRate: number; numChannels: number };
        wav = {
          sampleRate: fmt.sampleRate,
          channels: fmt.numChannels,
          bitDepth: parsed.bitDepth,
          samples: Int16Array.from(parsed.getSamples(false, Int16Array) as unknown as Int16Array),
          fileName: value.name,
          type: value.type,
        };
      }
    }
    const received = { authorization: req.headers.authorization, fields, wav: wav! };
    requests.push(received);
    answer(res, received);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests, closed: () => closedEarly };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** What whisper-1 answers with response_format=verbose_json. */
function verboseAnswer(
  text: string,
  segments: { start: number; end: number; avg_logprob: number; no_speech_prob: number }[],
) {
  return {
    task: 'transcribe',
    language: 'english',
    duration: segments.at(-1)?.end ?? 0,
    text,
    segments: segments.map((s, id) => ({
      id,
      seek: 0,
      ...s,
      text,
      tokens: [50364, 1079],
      temperature: 0,
      compression_ratio: 0.9,
    })),
  };
}

function transcriber(url: string, options: Partial<OpenAiTranscriberOptions> = {}): OpenAiTranscriber {
  return new OpenAiTranscriber({ baseUrl: url, apiKey: KEY, model: 'whisper-1', ...options });
}

const request = {
  language: 'en-US',
  expect: { slots: ['number'] as const, phrases: ['three bedrooms'] },
  names: ['Jordan Smith'],
};

describe('OpenAiTranscriber against an OpenAI-compatible /audio/transcriptions', () => {
  it('sends the utterance as a valid 8 kHz mono 16-bit WAV in a multipart form, and reads verbose_json', async () => {
    const server = await transcriptionServer((res) =>
      json(
        res,
        200,
        verboseAnswer(' Yes, I am interested. About $300,000.', [
          { start: 0, end: 1.5, avg_logprob: -0.1, no_speech_prob: 0.01 },
          { start: 1.5, end: 2, avg_logprob: -0.5, no_speech_prob: 0.02 },
        ]),
      ),
    );
    const speech = await telephoneSpeech('yes I am interested', 'slt');
    const stream = transcriber(server.url).open(request);
    writeFrames(stream, speech);
    const recognition = await stream.finish();

    expect(recognition.text).toBe('yes i am interested about three hundred thousand dollars');
    const expected = (1.5 * Math.exp(-0.1) * 0.99 + 0.5 * Math.exp(-0.5) * 0.98) / 2;
    expect(recognition.confidence).toBeCloseTo(expected, 2);

    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received!.authorization).toBe(`Bearer ${KEY}`);
    expect(received!.fields).toEqual({
      model: 'whisper-1',
      language: 'en',
      response_format: 'verbose_json',
      prompt: 'Jordan Smith, three bedrooms',
    });
    expect(received!.wav).toMatchObject({
      sampleRate: 8000,
      channels: 1,
      bitDepth: '16',
      fileName: 'utterance.wav',
    });
    expect(received!.wav.type).toBe('audio/wav');
    expect(received!.wav.samples).toEqual(speech);
  });

  it('takes plain json, with logprobs when the model gives them and a documented default when not', async () => {
    const answers = [
      { text: 'No thanks.' },
      {
        text: 'Wrong number.',
        logprobs: [
          { token: 'Wrong', logprob: -0.2, bytes: [] },
          { token: ' number', logprob: -0.4, bytes: [] },
        ],
      },
    ];
    const server = await transcriptionServer((res) => json(res, 200, answers.shift()));
    const engine = transcriber(server.url, { model: 'gpt-4o-transcribe', responseFormat: 'json' });
    for (const expected of [
      { text: 'no thanks', confidence: OPENAI_DEFAULT_CONFIDENCE },
      { text: 'wrong number', confidence: Math.round(Math.exp(-0.3) * 100) / 100 },
    ]) {
      const stream = engine.open(request);
      writeFrames(stream, await telephoneSpeech('no', 'kal'));
      expect(await stream.finish()).toEqual(expected);
    }
    expect(server.requests.map((r) => r.fields.response_format)).toEqual(['json', 'json']);
  });

  it('says nothing was heard for an empty utterance, without a request', async () => {
    const server = await transcriptionServer((res) => json(res, 200, { text: 'hallucinated' }));
    const stream = transcriber(server.url).open(request);
    expect(await stream.finish()).toEqual({ text: '', confidence: 0 });
    expect(server.requests).toHaveLength(0);
  });

  it('gives an empty transcript confidence 0', async () => {
    const server = await transcriptionServer((res) => json(res, 200, verboseAnswer(' ...', [])));
    const stream = transcriber(server.url).open(request);
    stream.write(new Int16Array(1600));
    expect(await stream.finish()).toEqual({ text: '', confidence: 0 });
  });

  it('sends at most maxUtteranceMs of audio', async () => {
    const server = await transcriptionServer((res) => json(res, 200, { text: 'hello' }));
    const stream = transcriber(server.url, { maxUtteranceMs: 1000 }).open(request);
    writeFrames(stream, new Int16Array(3 * 8000).fill(1000));
    await stream.finish();
    expect(server.requests[0]!.wav.samples).toHaveLength(8000);
  });

  it('fails with a SpeechError that carries the status and the server message but never the key', async () => {
    const server = await transcriptionServer((res, received) =>
      json(res, 401, {
        error: {
          message: `Incorrect API key provided: ${received.authorization}`,
          type: 'invalid_request_error',
        },
      }),
    );
    const stream = transcriber(server.url).open(request);
    stream.write(new Int16Array(1600));
    const error = await stream.finish().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SpeechError);
    // The server echoed the key (OpenAI echoes part of it): the error names it only as [key].
    expect((error as Error).message).toBe(
      'transcription endpoint answered 401: Incorrect API key provided: Bearer [key]',
    );
    expect((error as Error).message).not.toContain(KEY.slice(3, 12));
  });

  it('turns an HTML error page, an unreadable or oversized body into short SpeechErrors', async () => {
    const bodies: [number, string][] = [
      [502, `<html><body>${'Bad gateway '.repeat(100)}</body></html>`],
      [200, 'not json'],
      [200, JSON.stringify({ result: 'no text field' })],
      [200, JSON.stringify({ text: 'x'.repeat(5000) })],
    ];
    const server = await transcriptionServer((res) => {
      const [status, body] = bodies.shift()!;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
    const engine = transcriber(server.url, { maxResponseBytes: 4096 });
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const stream = engine.open(request);
      stream.write(new Int16Array(160));
      const error = await stream.finish().catch((err: unknown) => err);
      expect(error).toBeInstanceOf(SpeechError);
      messages.push((error as Error).message);
    }
    expect(messages[0]).toMatch(/^transcription endpoint answered 502: <html><body>Bad gateway/);
    expect(messages[0]!.length).toBeLessThan(260);
    expect(messages[1]).toMatch(/unreadable answer/);
    expect(messages[2]).toMatch(/unreadable answer: the response has no "text"/);
    expect(messages[3]).toBe('transcription response larger than 4096 bytes');
  });

  it('gives up after timeoutMs, and says so', async () => {
    const server = await transcriptionServer(() => {
      // never answers
    });
    const stream = transcriber(server.url, { timeoutMs: 300 }).open(request);
    stream.write(new Int16Array(160));
    await expect(stream.finish()).rejects.toThrow(new SpeechError('no transcript within 300 ms'));
  });

  it('cancel() aborts a request in flight', async () => {
    const server = await transcriptionServer(() => {
      // holds the request until the client goes away
    });
    const stream = transcriber(server.url).open(request);
    stream.write(new Int16Array(160));
    const finished = stream.finish().catch((err: unknown) => err);
    await expect.poll(() => server.requests.length).toBe(1);
    stream.cancel();
    expect(await finished).toEqual(new SpeechError('recognition was cancelled'));
    await expect.poll(() => server.closed()).toBeGreaterThan(0);
  });

  it('reports an endpoint that is not there', async () => {
    const server = await transcriptionServer(() => {});
    const url = server.url;
    servers.splice(0)[0]!.close();
    const stream = transcriber(url).open(request);
    stream.write(new Int16Array(160));
    await expect(stream.finish()).rejects.toThrow(/^transcription endpoint unreachable/);
  });

  it('supports the configured languages only, any when none are configured', () => {
    const any = transcriber('http://127.0.0.1:9/v1');
    expect(['en', 'en-GB', 'es-MX', 'de', 'yue'].every((l) => any.supports(l))).toBe(true);
    expect(any.supports('')).toBe(false);
    expect(any.supports('english')).toBe(false);
    const some = transcriber('http://127.0.0.1:9/v1', { languages: ['en', 'es'] });
    expect([some.supports('es-MX'), some.supports('EN_us'), some.supports('fr-FR')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(() => some.open({ ...request, language: 'fr-FR' })).toThrow(SpeechError);
  });
});
