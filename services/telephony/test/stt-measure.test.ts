import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Expectation } from '../src/conversation/types';
import { FRAME_MS, FRAME_SAMPLES } from '../src/media/codec';
import {
  buildGrammar,
  DEFAULT_DICTIONARY,
  DEFAULT_MODEL_DIR,
  loadDictionary,
  PocketsphinxRecognizer,
} from '../src/speech/stt';
import { upsampleForModel } from '../src/speech/stt/domain/upsample';
import { CALLERS, telephoneSpeech } from './stt-support';

// Measurements for the report, not a regular test: STT_MEASURE=1 pnpm exec vitest run
// services/telephony/test/stt-measure.test.ts (about a minute). It prints what each phrase is
// heard as, the time from finish() to the result with upsampled and with 8 kHz input, the
// decoder's start-up time and its memory. It asserts only that every recognition completed:
// speeds belong in the numbers it prints, not in pass/fail on a shared machine.

const PHRASES: [string, Expectation][] = [
  ['yes I am interested', { slots: ['yes_no'], phrases: [] }],
  ['no', { slots: ['yes_no'], phrases: [] }],
  ['please stop calling me', { slots: ['yes_no'], phrases: [] }],
  ['my name is jordan', { slots: ['name'], phrases: [] }],
  ['three hundred thousand', { slots: ['number'], phrases: [] }],
  ['call me back tomorrow', { slots: ['date', 'time'], phrases: [] }],
  ['wrong number', { slots: ['yes_no', 'name'], phrases: [] }],
];
const NAMES = ['Jordan Smith'];
const RUNS = 10;
/** The end of each utterance arrives in real time, so the decoder has caught up as it would on a call. */
const PACED_MS = 600;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall time (s) and peak memory (KB) of one decoder run, by /usr/bin/time. */
function timed(args: string[]): Promise<{ seconds: number; maxKb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%e %M', 'pocketsphinx_continuous', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', () => {
      const [seconds, maxKb] = err.trim().split('\n').at(-1)!.split(' ').map(Number);
      resolve({ seconds: seconds!, maxKb: maxKb! });
    });
  });
}

describe.runIf(process.env.STT_MEASURE === '1')('pocketsphinx measurements', () => {
  it('what each phrase is heard as, upsampled and at 8 kHz', { timeout: 300_000 }, async () => {
    const lines: string[] = [];
    for (const input of ['upsample', 'narrowband'] as const) {
      const engine = new PocketsphinxRecognizer({ input });
      let right = 0;
      for (const caller of CALLERS) {
        for (const [phrase, expect_] of PHRASES) {
          const stream = engine.open({ language: 'en-US', expect: expect_, names: NAMES });
          const pcm = await telephoneSpeech(phrase, caller);
          for (let at = 0; at < pcm.length; at += FRAME_SAMPLES)
            stream.write(pcm.slice(at, at + FRAME_SAMPLES));
          const { text, confidence } = await stream.finish();
          if (text === phrase.toLowerCase()) right += 1;
          lines.push(`${input} ${caller.padEnd(6)} ${confidence.toFixed(2)} "${phrase}" -> "${text}"`);
          expect(typeof text).toBe('string');
        }
      }
      lines.push(`${input}: ${right} of ${CALLERS.length * PHRASES.length} word for word`);
    }
    console.log(lines.join('\n'));
  });

  it('time from finish() to the result', { timeout: 300_000 }, async () => {
    const lines: string[] = [];
    for (const input of ['upsample', 'narrowband'] as const) {
      const engine = new PocketsphinxRecognizer({ input });
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const [phrase, expect_] = PHRASES[run % PHRASES.length]!;
        const pcm = await telephoneSpeech(phrase, 'slt');
        const stream = engine.open({ language: 'en-US', expect: expect_, names: NAMES });
        await sleep(500); // the agent is still talking: the decoder starts meanwhile
        const paced = pcm.length - (PACED_MS / FRAME_MS) * FRAME_SAMPLES;
        stream.write(pcm.slice(0, paced));
        for (let at = paced; at < pcm.length; at += FRAME_SAMPLES) {
          stream.write(pcm.slice(at, at + FRAME_SAMPLES));
          await sleep(FRAME_MS);
        }
        const started = performance.now();
        await stream.finish();
        times.push(performance.now() - started);
      }
      lines.push(
        `${input}: finish() -> result p50 ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms over ${RUNS} runs`,
      );
      expect(times).toHaveLength(RUNS);
    }
    console.log(lines.join('\n'));
  });

  it('decoder start-up and memory', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stt-measure-'));
    const lines: string[] = [];
    try {
      const dictionary = await loadDictionary(DEFAULT_DICTIONARY);
      const all: Expectation = { slots: ['yes_no', 'number', 'date', 'time', 'digits', 'name'], phrases: [] };
      for (const [label, expect_] of [
        ['yes/no turn', PHRASES[0]![1]],
        ['every slot', all],
      ] as const) {
        const grammar = buildGrammar({ expect: expect_, names: NAMES }, dictionary);
        await writeFile(path.join(dir, 'turn.jsgf'), grammar.jsgf);
        await writeFile(path.join(dir, 'turn.dict'), dictionary.subset(grammar.words));
        const audio = path.join(dir, 'utterance.raw');
        const pcm = upsampleForModel(await telephoneSpeech('please stop calling me', 'slt'));
        await writeFile(audio, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
        const base = ['-hmm', DEFAULT_MODEL_DIR, '-jsgf', path.join(dir, 'turn.jsgf'), '-logfn', '/dev/null'];
        for (const [what, args] of [
          ['start, turn dictionary', [...base, '-dict', path.join(dir, 'turn.dict'), '-infile', '/dev/null']],
          ['start, full dictionary', [...base, '-dict', DEFAULT_DICTIONARY, '-infile', '/dev/null']],
          [
            'decode 2.4 s, turn dictionary',
            [...base, '-dict', path.join(dir, 'turn.dict'), '-infile', audio, '-remove_silence', 'no'],
          ],
        ] as const) {
          const runs = [];
          for (let i = 0; i < 5; i++) runs.push(await timed([...args]));
          lines.push(
            `${label} (${grammar.words.length} words), ${what}: p50 ${(median(runs.map((r) => r.seconds)) * 1000).toFixed(0)} ms, peak RSS ${(median(runs.map((r) => r.maxKb)) / 1024).toFixed(1)} MB`,
          );
          expect(runs.every((r) => r.maxKb > 0)).toBe(true);
        }
      }
      console.log(lines.join('\n'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
