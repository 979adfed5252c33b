import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { envelope } from '@voice/shared/testing/sip';
import { describe, expect, it } from 'vitest';
import { SpeechError } from '../src/conversation/types';
import {
  collectSpeech,
  DEFAULT_SEGMENTS,
  type LocalEngine,
  LocalSynthesizer,
  type VoicePlan,
} from '../src/speech/tts';

// Real espeak-ng, flite and sox processes: what they stream, how fast the first audio comes
// relative to the rest (by what is still running, never by the clock), and that stopping kills them.

const THREE =
  'Hello, this is the voice platform calling about your appointment tomorrow. I wanted to confirm the time with you. Would ten in the morning still suit you?';
/** Long enough that its synthesis is still going on when the first audio is out. */
const LONG = Array.from(
  { length: 16 },
  (_, i) => `This is sentence number ${i + 1} of a long message that the agent reads out to the callee.`,
).join(' ');

const VOICES: Record<LocalEngine, string> = { 'espeak-ng': 'en-us', flite: 'slt' };
const only = (engine: LocalEngine): VoicePlan => ({
  language: 'en',
  attempts: [{ engine, voice: VOICES[engine] }],
});
const synthesizer = new LocalSynthesizer();

const TOOLS = new Set(['espeak-ng', 'flite', 'sox', 'stdbuf']);

/** The speech tools this test process is running now: pid to name, from /proc (zombies aside). */
async function runningTools(): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  for (const task of await readdir('/proc/self/task')) {
    const children = await readFile(`/proc/self/task/${task}/children`, 'utf8').catch(() => '');
    for (const pid of children.split(' ').filter(Boolean)) {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      const match = /^\d+ \((.*)\) (\S)/.exec(stat);
      if (match && match[2] !== 'Z' && TOOLS.has(match[1]!)) found.set(Number(pid), match[1]!);
    }
  }
  return found;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const someRunning = async () => {
  const tools = await runningTools();
  return tools.size > 0 ? tools : undefined;
};
const noneOf = (pids: Iterable<number>) => async () => {
  const now = await runningTools();
  return [...pids].some((pid) => now.has(pid)) ? undefined : true;
};

/**
 * Reads `stream` to its end; at its first chunk, before reading on, looks for a speech tool at work,
 * calling `onTool` with the first ones seen. Says whether they were seen before the stream ended.
 */
async function readWatching(
  stream: AsyncIterable<Int16Array>,
  onTool: (tools: Map<number, string>) => void = () => {},
): Promise<{ chunks: Int16Array[]; seen: Map<number, string> | undefined; seenBeforeEnd: boolean }> {
  const chunks: Int16Array[] = [];
  let ended = false;
  let seenBeforeEnd = false;
  let watching: Promise<Map<number, string> | undefined> | undefined;
  for await (const chunk of stream) {
    chunks.push(chunk);
    if (watching) continue;
    watching = until(async () => (ended ? null : await someRunning()), 'a speech tool at work').then(
      (tools) => {
        if (!tools) return undefined;
        seenBeforeEnd = !ended;
        onTool(tools);
        return tools;
      },
    );
    // The next chunk is asked for only once the tools were looked for: a stream that streams keeps
    // its tools blocked on their full pipe meanwhile (a fast engine could otherwise finish the
    // whole text before the first look); one that buffered the whole text would have no tool left.
    await watching;
  }
  ended = true;
  return { chunks, seen: await watching, seenBeforeEnd };
}

/** The old way: one engine run over the whole text, then one resampling of its whole output. */
async function wholeFile(engine: LocalEngine, text: string): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tts-test-'));
  try {
    await writeFile(path.join(dir, 'text.txt'), text);
    const to8k = '-t raw -e signed-integer -b 16 -c 1 -L - rate 8000 | wc -c';
    const script =
      engine === 'espeak-ng'
        ? `espeak-ng --stdout -v en-us -f text.txt | sox -V1 -t wav - ${to8k}`
        : `flite -voice slt -f text.txt -o speech.wav && sox -V1 speech.wav ${to8k}`;
    const { stdout } = await promisify(execFile)('sh', ['-c', script], { cwd: dir });
    return Number(stdout.trim()) / 2;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('local speech synthesis', () => {
  it.each(['espeak-ng', 'flite'] as const)(
    '%s streams: the first audio is out while the rest is still being made',
    async (engine) => {
      const { chunks, seen, seenBeforeEnd } = await readWatching(synthesizer.speak(LONG, only(engine)));
      // After the first chunk had come out, the engine (or sox) was still at work on what follows.
      expect(seenBeforeEnd).toBe(true);
      expect(chunks.length).toBeGreaterThan(5);
      const pcm = await collectSpeech(chunks);
      // Sixteen sentences of sixteen words: a minute or so of speech, most of it loud.
      expect(pcm.length / 8000).toBeGreaterThan(30);
      const frames = envelope(pcm);
      expect(frames.filter((rms) => rms > 500).length / frames.length).toBeGreaterThan(0.3);
      await until(noneOf(seen!.keys()), 'the tools to exit');
    },
  );

  it('espeak-ng streams within a sentence: audio is out while espeak-ng is still speaking it', async () => {
    const onePiece = new LocalSynthesizer({ segments: { firstChars: 4000, maxChars: 4000 } });
    const text = LONG.replaceAll('.', ',');
    const { seen, seenBeforeEnd } = await readWatching(onePiece.speak(text, only('espeak-ng')));
    expect(seenBeforeEnd).toBe(true);
    expect([...seen!.values()]).toContain('espeak-ng');
  });

  it.each(['espeak-ng', 'flite'] as const)(
    '%s makes about as much audio sentence by sentence as over the whole text at once',
    async (engine) => {
      const streamed = await collectSpeech(synthesizer.speak(THREE, only(engine)));
      const whole = await wholeFile(engine, THREE);
      expect(whole / 8000).toBeGreaterThan(5);
      expect(Math.abs(streamed.length - whole) / whole).toBeLessThan(0.1);
    },
  );

  it.each(['espeak-ng', 'flite'] as const)(
    '%s: aborting kills the tools at once and ends the stream',
    async (engine) => {
      // One long piece: its engine run lasts, and is what gets killed.
      const long = new LocalSynthesizer({ segments: { firstChars: 60, maxChars: 4000 } });
      const text = `Hello, ${LONG.replaceAll('.', ',')}`;
      const abort = new AbortController();
      const { chunks, seen } = await readWatching(long.speak(text, only(engine), abort.signal), () =>
        abort.abort(),
      );
      // Ended without an error, long before the whole text was spoken.
      expect(abort.signal.aborted).toBe(true);
      expect(chunks.length).toBeGreaterThan(0);
      expect((await collectSpeech(chunks)).length / 8000).toBeLessThan(30);
      await until(noneOf(seen!.keys()), 'the killed tools to be gone');
      expect((await runningTools()).size).toBe(0);
    },
  );

  it('a listener that stops early stops the tools too', async () => {
    const long = new LocalSynthesizer({ segments: { firstChars: 60, maxChars: 4000 } });
    let working: Map<number, string> | undefined;
    for await (const _ of long.speak(`Hello, ${LONG.replaceAll('.', ',')}`, only('flite'))) {
      working = await until(someRunning, 'a speech tool at work');
      break;
    }
    await until(noneOf(working!.keys()), 'the tools to be gone');
  });

  it('speaks an agent voice in its language', async () => {
    for (const [voice, language] of [
      ['jorge', 'es-MX'],
      ['katja', 'de'],
      ['aria', 'en'],
    ] as const) {
      const pcm = await collectSpeech(synthesizer.stream({ text: 'Uno, dos, tres. Vier.', voice, language }));
      expect(pcm.length / 8000, `${voice} ${language}`).toBeGreaterThan(0.8);
    }
  });

  it('says which language it cannot speak', async () => {
    const error = await collectSpeech(
      synthesizer.stream({ text: 'Hello there.', voice: 'aria', language: 'qaa-XX' }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpeechError);
    expect((error as Error).message).toMatch(/language "qaa-XX".*espeak-ng has no voice "qaa-xx\+f2"/);
  });

  it('falls back to the next engine when one fails, for the rest of the text', async () => {
    const plan: VoicePlan = {
      language: 'en',
      attempts: [
        { engine: 'espeak-ng', voice: 'no-such-voice' },
        { engine: 'flite', voice: 'slt' },
      ],
    };
    // The same pieces for both, whichever engine the plan starts with.
    const sentences = new LocalSynthesizer({ segments: DEFAULT_SEGMENTS });
    const pcm = await collectSpeech(sentences.speak(THREE, plan));
    const flite = await collectSpeech(sentences.speak(THREE, only('flite')));
    expect(pcm).toEqual(flite);
  });

  it('bounds the text, the time per sentence and the audio', async () => {
    const refuse = (s: LocalSynthesizer, text: string) => collectSpeech(s.speak(text, only('espeak-ng')));
    await expect(refuse(new LocalSynthesizer({ maxTextChars: 20 }), THREE)).rejects.toThrow(
      /text longer than 20 characters/,
    );
    await expect(refuse(new LocalSynthesizer({ segmentTimeoutMs: 1 }), THREE)).rejects.toThrow(
      /espeak-ng \(en-us\): took longer than 1 ms/,
    );
    await expect(refuse(new LocalSynthesizer({ maxSeconds: 1 }), THREE)).rejects.toThrow(/more than/);
    // Nothing speakable: no audio, and no error.
    expect((await refuse(synthesizer, ' ... ')).length).toBe(0);
  });
});
