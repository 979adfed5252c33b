import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { espeakHasVoice, fliteHasVoice } from './installed-voices';
import { pcmOf, startResampler, startTool } from './tools';
import type { EngineVoice } from './voice-map';

/** One piece of text for one engine; its processes die when `signal` aborts. */
export interface EngineRun {
  text: string;
  voice: EngineVoice;
  signal: AbortSignal;
  /** Past this much audio the run is killed and fails. */
  maxSamples: number;
  /** espeak-ng speaking rate in words per minute; its default (175) when absent. */
  wordsPerMinute?: number | undefined;
}

/** 8 kHz speech for one piece of text, as the engine produces it. Throws when the engine fails. */
export function runEngine(run: EngineRun): AsyncGenerator<Int16Array> {
  return run.voice.engine === 'espeak-ng' ? espeak(run) : flite(run);
}

/**
 * espeak-ng writes its WAV to stdout as it synthesises; sox resamples it in the same pipe, so the
 * first audio comes out while the rest is still being made. The text goes on stdin: on the
 * command line a leading dash would be an option.
 */
async function* espeak(run: EngineRun): AsyncGenerator<Int16Array> {
  const { voice } = run.voice;
  if (!(await espeakHasVoice(voice))) throw new Error(`espeak-ng has no voice ${JSON.stringify(voice)}`);
  const args = ['--stdout', '-b', '1', '-v', voice];
  if (run.wordsPerMinute) args.push('-s', String(Math.round(run.wordsPerMinute)));
  const engine = startTool('espeak-ng', args, run.signal, run.text);
  const sox = startResampler(['-t', 'wav', '-'], run.signal);
  engine.child.stdout.pipe(sox.child.stdin);
  yield* pcmOf(sox, run.maxSamples);
  await engine.exited;
}

/**
 * flite makes a whole utterance before it writes any of it, and then seeks back into its file to
 * patch the RIFF header for each further utterance: it cannot write to a pipe (`-o /dev/stdout`
 * fails, and is a socket under Node anyway). So it writes a file per piece of text (a sentence:
 * the streaming happens between pieces), which sox then reads.
 */
async function* flite(run: EngineRun): AsyncGenerator<Int16Array> {
  const { voice } = run.voice;
  if (!(await fliteHasVoice(voice))) throw new Error(`flite has no voice ${JSON.stringify(voice)}`);
  // mkdtemp makes it 0700: what the callee is told is nobody else's to read.
  const dir = await mkdtemp(path.join(tmpdir(), 'tts-flite-'));
  try {
    const file = path.join(dir, 'speech.wav');
    await startTool('flite', ['-voice', voice, '-o', file], run.signal, run.text).exited;
    yield* pcmOf(startResampler([file], run.signal), run.maxSamples);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
