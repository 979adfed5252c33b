import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Expectation, SpeechError } from '../src/conversation/types';
import {
  buildGrammar,
  DEFAULT_DICTIONARY,
  loadDictionary,
  type PocketsphinxOptions,
  PocketsphinxRecognizer,
} from '../src/speech/stt';
import {
  type Caller,
  telephoneSpeech,
  throughG711,
  withSilence,
  wordsInOrder,
  writeFrames,
} from './stt-support';

// Real pocketsphinx_continuous (Debian 0.8+5prealpha, en-us model) on real synthetic speech:
// flite (slt, kal) and espeak-ng, 8 kHz, through G.711 and back, fed in 20 ms frames.
//
// pocketsphinx is approximate, and more so on narrowband synthetic voices, so each phrase asserts
// the words that carry its meaning, not the whole sentence. The outputs are deterministic for a
// given grammar and audio; these bounds leave room for small grammar changes:
// - flite slt and kal were recognised word for word except slt's "three hundred thousand", heard
//   as "three hundred and ten": the /th/ and /z/ of "thousand" are nearly gone below 4 kHz.
// - slot answers (numbers, dates, times, a turn's phrases) from slt came through word for word.
// - espeak-ng's voice fits the acoustic model badly ("yes I am interested" -> "yeah", "wrong
//   number" -> "ronald"): only a majority of its phrases is required to come through.

interface Case {
  phrase: string;
  /** What the agent's turn expects when this answer comes. */
  expect: Expectation;
  /** Words that must be heard (they carry the intent or the slot). */
  key: string[];
  /** Words of the phrase that must be heard in order. */
  atLeast: number;
}

const CASES: Case[] = [
  {
    phrase: 'yes I am interested',
    expect: { slots: ['yes_no'], phrases: [] },
    key: ['yes', 'interested'],
    atLeast: 3,
  },
  { phrase: 'no', expect: { slots: ['yes_no'], phrases: [] }, key: ['no'], atLeast: 1 },
  {
    phrase: 'please stop calling me',
    expect: { slots: ['yes_no'], phrases: [] },
    key: ['stop', 'calling'],
    atLeast: 3,
  },
  { phrase: 'my name is jordan', expect: { slots: ['name'], phrases: [] }, key: ['jordan'], atLeast: 3 },
  {
    phrase: 'three hundred thousand',
    expect: { slots: ['number'], phrases: [] },
    key: ['three', 'hundred'],
    atLeast: 2,
  },
  {
    phrase: 'call me back tomorrow',
    expect: { slots: ['date', 'time'], phrases: [] },
    key: ['call', 'back', 'tomorrow'],
    atLeast: 3,
  },
  {
    phrase: 'wrong number',
    expect: { slots: ['yes_no', 'name'], phrases: [] },
    key: ['wrong', 'number'],
    atLeast: 2,
  },
];

const NAMES = ['Jordan Smith'];
const recognizer = new PocketsphinxRecognizer();

async function recognise(pcm: Int16Array, expect: Expectation, engine = recognizer) {
  const stream = engine.open({ language: 'en-US', expect, names: NAMES });
  writeFrames(stream, pcm);
  return stream.finish();
}

let scripts: string;
beforeAll(async () => {
  scripts = await mkdtemp(path.join(tmpdir(), 'stt-test-'));
});
afterAll(async () => {
  await rm(scripts, { recursive: true, force: true });
});

/** A stand-in decoder: a shell script run with the decoder's arguments (and its stdin). */
async function script(name: string, body: string): Promise<string> {
  const file = path.join(scripts, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('PocketsphinxRecognizer on telephone speech', () => {
  for (const caller of ['slt', 'kal'] as const satisfies readonly Caller[]) {
    for (const c of CASES) {
      it(`hears "${c.phrase}" from flite ${caller}`, async () => {
        const { text, confidence } = await recognise(await telephoneSpeech(c.phrase, caller), c.expect);
        const words = text.split(' ');
        for (const key of c.key) expect(words, text).toContain(key);
        expect(wordsInOrder(text, c.phrase.toLowerCase()), text).toBeGreaterThanOrEqual(c.atLeast);
        expect(confidence).toBeGreaterThan(0.3);
        expect(confidence).toBeLessThanOrEqual(1);
      });
    }
  }

  it('hears the slots a turn expects, in the sentences around them (flite slt)', async () => {
    const answers: [string, Expectation][] = [
      ['three hundred fifty thousand', { slots: ['number'], phrases: [] }],
      ['about two hundred thousand dollars', { slots: ['number'], phrases: [] }],
      ['next monday at ten thirty', { slots: ['date', 'time'], phrases: [] }],
      ['june fifth', { slots: ['date'], phrases: [] }],
      ['three p m', { slots: ['time'], phrases: [] }],
      ['the blue one', { slots: [], phrases: ['Blue', 'Red', 'Green'] }],
    ];
    for (const [phrase, expect_] of answers) {
      const { text } = await recognise(await telephoneSpeech(phrase, 'slt'), expect_);
      expect(text).toBe(phrase);
    }
  });

  it('hears most phrases from espeak-ng, through A-law this time, and never fails on the rest', async () => {
    let heard = 0;
    for (const c of CASES) {
      const { text, confidence } = await recognise(
        await telephoneSpeech(c.phrase, 'espeak', 'PCMA'),
        c.expect,
      );
      expect(text).toMatch(/^([a-z']+( [a-z']+)*)?$/);
      expect(confidence).toBeGreaterThanOrEqual(0);
      expect(confidence).toBeLessThanOrEqual(1);
      if (wordsInOrder(text, c.phrase.toLowerCase()) * 2 >= c.phrase.split(' ').length) heard += 1;
    }
    expect(heard).toBeGreaterThanOrEqual(4);
  });

  it('hears nothing, or with low confidence, in silence, noise and a hum; nothing at all in no audio', async () => {
    const expect_: Expectation = { slots: ['yes_no', 'number', 'name'], phrases: [] };
    const noise = Int16Array.from({ length: 12_000 }, (_, i) =>
      Math.round(3000 * Math.sin(i * 12.9898) * Math.sin(i * 0.37)),
    );
    const hum = Int16Array.from({ length: 16_000 }, (_, i) =>
      Math.round(3000 * Math.sin((2 * Math.PI * 120 * i) / 8000)),
    );
    for (const pcm of [new Int16Array(16_000), noise, hum]) {
      const { text, confidence } = await recognise(withSilence(throughG711(pcm, 'PCMU'), 300, 500), expect_);
      if (text !== '') expect(confidence, text).toBeLessThanOrEqual(0.3);
      else expect(confidence).toBe(0);
    }
    expect(await recognise(new Int16Array(0), expect_)).toEqual({ text: '', confidence: 0 });
  });

  it('always decodes with the turn grammar and its own small dictionary, never the dictation model', async () => {
    const log = path.join(scripts, 'args.log');
    const binary = await script('record-args', `echo "$@" >> ${log}\nexec pocketsphinx_continuous "$@"`);
    const engine = new PocketsphinxRecognizer({ binary });
    const result = await recognise(await telephoneSpeech('wrong number', 'kal'), CASES[6]!.expect, engine);
    expect(result.text).toBe('wrong number');
    const args = (await readFile(log, 'utf8')).trim();
    expect(args).toMatch(/-jsgf \S+\/turn\.jsgf/);
    expect(args).toMatch(/-dict \S+\/turn\.dict/);
    expect(args).not.toMatch(/-lm |-kws |-keyphrase /);
  });
});

describe('PocketsphinxRecognizer, its languages and its limits', () => {
  it('supports English only: en and any en-<region>', () => {
    for (const language of ['en', 'en-US', 'en-GB', 'en-AU', 'en-IN', 'EN_ca']) {
      expect(recognizer.supports(language), language).toBe(true);
    }
    for (const language of ['es', 'es-MX', 'fr-FR', 'de', 'eng', 'english', '']) {
      expect(recognizer.supports(language), language).toBe(false);
    }
    expect(() => recognizer.open({ language: 'es-MX', expect: CASES[0]!.expect, names: [] })).toThrow(
      SpeechError,
    );
  });

  it('knows every word of its own vocabulary in the installed dictionary', async () => {
    const dictionary = await loadDictionary(DEFAULT_DICTIONARY);
    const all: Expectation = { slots: ['yes_no', 'number', 'date', 'time', 'digits', 'name'], phrases: [] };
    expect(buildGrammar({ expect: all, names: [] }, dictionary).unknown).toEqual([]);
  });

  it("tells which words of the turn's phrases and names it cannot hear", async () => {
    const unknown: string[][] = [];
    const engine = new PocketsphinxRecognizer({ onUnknownWords: (words) => unknown.push([...words]) });
    await recognise(new Int16Array(800), { slots: [], phrases: ['Zorbnik Avenue'] }, engine);
    expect(unknown).toEqual([['zorbnik']]);
  });

  it('cancel() kills the decoder, and finish() then fails', async () => {
    const pidFile = path.join(scripts, 'cancel.pid');
    const binary = await script('record-pid', `echo $$ > ${pidFile}\nexec pocketsphinx_continuous "$@"`);
    const stream = new PocketsphinxRecognizer({ binary }).open({
      language: 'en',
      expect: CASES[0]!.expect,
      names: [],
    });
    stream.write(new Int16Array(1600));
    let pid = 0;
    await expect
      .poll(async () => {
        pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
        return pid > 0 && alive(pid);
      })
      .toBe(true);
    stream.cancel();
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    await expect(stream.finish()).rejects.toThrow(new SpeechError('recognition was cancelled'));
  });

  it('kills a decoder left open past maxOpenMs', async () => {
    const pidFile = path.join(scripts, 'open.pid');
    const binary = await script('record-pid-2', `echo $$ > ${pidFile}\nexec pocketsphinx_continuous "$@"`);
    const stream = new PocketsphinxRecognizer({ binary, maxOpenMs: 1500 }).open({
      language: 'en',
      expect: CASES[0]!.expect,
      names: [],
    });
    let pid = 0;
    await expect
      .poll(async () => {
        pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
        return pid;
      })
      .toBeGreaterThan(0);
    await expect.poll(() => alive(pid), { timeout: 20_000 }).toBe(false);
    await expect(stream.finish()).rejects.toThrow(new SpeechError('no end of utterance within 1500 ms'));
  });

  it('passes at most maxUtteranceMs of audio to the decoder', async () => {
    const counted = path.join(scripts, 'bytes');
    const binary = await script('count-bytes', `wc -c > ${counted}`);
    const stream = new PocketsphinxRecognizer({ binary, maxUtteranceMs: 2000 }).open({
      language: 'en',
      expect: CASES[0]!.expect,
      names: [],
    });
    writeFrames(stream, new Int16Array(40 * 8000).fill(500));
    expect(await stream.finish()).toEqual({ text: '', confidence: 0 });
    // 2 s at 8 kHz, each sample held twice for the 16 kHz model, 2 bytes a sample.
    expect(Number((await readFile(counted, 'utf8')).trim())).toBe(2 * 8000 * 2 * 2);
  });

  it('fails with a clear SpeechError when the decoder, the model or the dictionary is missing', async () => {
    const cases: [PocketsphinxOptions, RegExp][] = [
      [
        { binary: '/nonexistent/pocketsphinx_continuous' },
        /is not installed \(Debian package pocketsphinx\)/,
      ],
      [{ modelDir: '/nonexistent/en-us' }, /no pocketsphinx acoustic model at \/nonexistent\/en-us/],
      [{ dictionary: '/nonexistent/cmudict.dict' }, /dictionary \/nonexistent\/cmudict.dict is unusable/],
    ];
    for (const [options, message] of cases) {
      const stream = new PocketsphinxRecognizer(options).open({
        language: 'en',
        expect: CASES[0]!.expect,
        names: [],
      });
      stream.write(new Int16Array(800));
      const error = await stream.finish().catch((err: unknown) => err);
      expect(error).toBeInstanceOf(SpeechError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('fails when the decoder dies or refuses the grammar, instead of reporting silence', async () => {
    const crashing = await script('crash', 'cat > /dev/null; echo "FATAL: out of cheese" >&2; exit 3');
    const refusing = await script(
      'refuse',
      `cat > /dev/null; echo 'ERROR: "fsg_search.c", line 141: The word x is missing in the dictionary' >&2`,
    );
    for (const [binary, message] of [
      [crashing, 'pocketsphinx failed: FATAL: out of cheese'],
      [refusing, 'pocketsphinx: "fsg_search.c", line 141: The word x is missing in the dictionary'],
    ] as const) {
      const stream = new PocketsphinxRecognizer({ binary }).open({
        language: 'en',
        expect: CASES[0]!.expect,
        names: [],
      });
      stream.write(new Int16Array(800));
      await expect(stream.finish()).rejects.toThrow(new SpeechError(message));
    }
  });
});
