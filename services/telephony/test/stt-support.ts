import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RecognitionStream } from '../src/conversation/types';
import { decodeG711, encodeG711, FRAME_SAMPLES, type G711Codec } from '../src/media/codec';

const run = promisify(execFile);

/** The synthetic callers: flite's slt (female) and kal (male, a diphone voice), and espeak-ng. */
export type Caller = 'slt' | 'kal' | 'espeak';
export const CALLERS: readonly Caller[] = ['slt', 'kal', 'espeak'];

const cache = new Map<string, Promise<Int16Array>>();

/**
 * `text` as a callee says it down the line: synthesised, 8 kHz, through G.711 and back, with the
 * 300 ms of silence before (the VAD's pre-roll) and 500 ms after (its end-of-utterance wait).
 */
export function telephoneSpeech(
  text: string,
  caller: Caller,
  codec: G711Codec = 'PCMU',
): Promise<Int16Array> {
  const key = `${caller}|${codec}|${text}`;
  let speech = cache.get(key);
  if (!speech) {
    speech = synthesize8k(text, caller).then((pcm) => throughG711(withSilence(pcm, 300, 500), codec));
    cache.set(key, speech);
  }
  return speech;
}

/**
 * The voice at 8 kHz, the same samples on every run: sox dithers by default when it resamples,
 * and that +-1 bit of noise was enough to turn "june fifth" into "june fifteenth" now and then.
 * (media/tts.ts, which the agent speaks with, leaves sox's dither on.)
 */
async function synthesize8k(text: string, caller: Caller): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(tmpdir(), 'stt-voice-'));
  try {
    const wav = path.join(dir, 'speech.wav');
    if (caller === 'espeak') await run('espeak-ng', ['-v', 'en-us', '-w', wav, text]);
    else await run('flite', ['-voice', caller, '-t', text, '-o', wav]);
    const { stdout } = await run(
      'sox',
      [wav, '-D', '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1', '-L', '-', 'rate', '8000'],
      { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    );
    return new Int16Array(
      stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + (stdout.byteLength & ~1)),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function withSilence(pcm: Int16Array, beforeMs: number, afterMs: number): Int16Array {
  const out = new Int16Array(pcm.length + ((beforeMs + afterMs) * 8000) / 1000);
  out.set(pcm, (beforeMs * 8000) / 1000);
  return out;
}

export function throughG711(pcm: Int16Array, codec: G711Codec): Int16Array {
  return decodeG711(codec, encodeG711(codec, pcm));
}

/** Writes `pcm` in 20 ms frames, as the media path hands them over. */
export function writeFrames(stream: RecognitionStream, pcm: Int16Array): void {
  for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) stream.write(pcm.slice(at, at + FRAME_SAMPLES));
}

/** Words of `expected` found, in order, in `heard` (a subsequence): how much of a phrase came through. */
export function wordsInOrder(heard: string, expected: string): number {
  const words = heard.split(' ');
  let found = 0;
  let at = 0;
  for (const word of expected.split(' ')) {
    const index = words.indexOf(word, at);
    if (index >= 0) {
      found += 1;
      at = index + 1;
    }
  }
  return found;
}
