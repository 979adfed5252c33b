import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readPcmWav } from '@voice/shared/testing/sip';
import { afterAll } from 'vitest';
import { decodeG711, encodeG711, FRAME_MS, FRAME_SAMPLES, type G711Codec } from '../src/media/codec';

// Real audio for the analysis tests: speech from espeak-ng and flite, tones and line noise from
// sox, all as 8 kHz WAVs cached in one temp dir per test file, put together here and passed
// through G.711 as a call would carry them.

const run = promisify(execFile);
const RATE = 8000;

export const ms = (samples: number) => (samples * 1000) / RATE;
const samplesOf = (millis: number) => Math.round((millis * RATE) / 1000);

export type Voice = { engine: 'espeak-ng'; voice?: string } | { engine: 'flite'; voice: string };

export interface AudioLab {
  /** `text` spoken, at 8 kHz, with the silence the engine puts before and after trimmed by sox. */
  speech(text: string, voice: Voice): Promise<Int16Array>;
  /** A sine (or several, mixed) from sox synth, `vol` of full scale. */
  tone(frequencies: readonly number[], millis: number, vol?: number): Promise<Int16Array>;
  /** sox whitenoise at `vol`: line noise (0.01) or a noisy line (0.2). */
  noise(millis: number, vol?: number): Promise<Int16Array>;
  close(): Promise<void>;
}

/** A lab for this test file: its temp dir is made on first use and removed after the file's tests. */
export function useAudioLab(): AudioLab {
  const lab = audioLab();
  afterAll(() => lab.close());
  return lab;
}

export function audioLab(): AudioLab {
  let made = 0;
  let folder: Promise<string> | undefined;
  const dir = () => {
    folder ??= mkdtemp(path.join(tmpdir(), 'analysis-audio-'));
    return folder;
  };
  const cache = new Map<string, Promise<Int16Array>>();
  const cached = (key: string, make: (wav: string) => Promise<void>) => {
    let pcm = cache.get(key);
    if (!pcm) {
      const n = made++;
      pcm = dir().then(async (d) => {
        const wav = path.join(d, `${n}.wav`);
        await make(wav);
        const { rate, channels } = await readPcmWav(wav);
        if (rate !== RATE || channels.length !== 1)
          throw new Error(`${key}: ${rate} Hz x ${channels.length}`);
        return channels[0]!;
      });
      cache.set(key, pcm);
    }
    return pcm;
  };
  const to8k = ['-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer'];
  // Leading and trailing silence (below 1% of full scale) trimmed: the clip starts at its onset.
  const trim = ['silence', '1', '0.005', '1%', 'reverse', 'silence', '1', '0.005', '1%', 'reverse'];
  return {
    speech: (text, voice) =>
      cached(`speech ${voice.engine} ${voice.voice ?? ''} ${text}`, async (wav) => {
        const raw = `${wav}.tts.wav`;
        const textFile = `${wav}.txt`;
        await writeFile(textFile, text);
        if (voice.engine === 'espeak-ng') {
          await run('espeak-ng', [...(voice.voice ? ['-v', voice.voice] : []), '-f', textFile, '-w', raw]);
        } else {
          await run('flite', ['-voice', voice.voice, '-f', textFile, '-o', raw]);
        }
        await run('sox', [raw, ...to8k, wav, ...trim]);
      }),
    tone: (frequencies, millis, vol = 0.5) =>
      cached(`tone ${frequencies.join('+')} ${millis} ${vol}`, async (wav) => {
        const seconds = String(millis / 1000);
        const synth = frequencies.flatMap((f, i) => [
          'synth',
          seconds,
          'sine',
          ...(i > 0 ? ['mix'] : []),
          String(f),
        ]);
        await run('sox', ['-n', ...to8k, wav, ...synth, 'vol', String(vol)]);
      }),
    noise: (millis, vol = 0.01) =>
      cached(`noise ${millis} ${vol}`, async (wav) => {
        // -R: the same noise every run, so a test that passes once passes always.
        await run('sox', [
          '-R',
          '-n',
          ...to8k,
          wav,
          'synth',
          String(millis / 1000),
          'whitenoise',
          'vol',
          String(vol),
        ]);
      }),
    close: async () => {
      if (folder) await rm(await folder, { recursive: true, force: true });
    },
  };
}

/** Where each piece of a timeline starts, in ms. */
export interface Placed {
  startMs: number;
  endMs: number;
}

/**
 * Pieces laid end to end: a number is that many ms of digital silence. Returns the audio and
 * where each piece landed.
 */
export function timeline(...pieces: (Int16Array | number)[]): { pcm: Int16Array; at: Placed[] } {
  const arrays = pieces.map((p) => (typeof p === 'number' ? new Int16Array(samplesOf(p)) : p));
  const pcm = new Int16Array(arrays.reduce((n, a) => n + a.length, 0));
  const at: Placed[] = [];
  let offset = 0;
  for (const a of arrays) {
    pcm.set(a, offset);
    at.push({ startMs: ms(offset), endMs: ms(offset + a.length) });
    offset += a.length;
  }
  return { pcm, at };
}

/** `noise` added under `pcm` (repeated as needed), clipped to 16 bits. */
export function withNoise(pcm: Int16Array, noise: Int16Array): Int16Array {
  return pcm.map((s, i) => Math.max(-32768, Math.min(32767, s + noise[i % noise.length]!)));
}

/** Through a G.711 codec and back, as the far end's audio reaches us. */
export function overG711(pcm: Int16Array, codec: G711Codec = 'PCMU'): Int16Array {
  return decodeG711(codec, encodeG711(codec, pcm));
}

/** The audio as the RTP session delivers it: 20 ms frames stamped at their start (ms from 0). */
export function* frames(pcm: Int16Array, startMs = 0): Generator<[Int16Array, number]> {
  for (let i = 0; i + FRAME_SAMPLES <= pcm.length; i += FRAME_SAMPLES) {
    yield [pcm.slice(i, i + FRAME_SAMPLES), startMs + (i / FRAME_SAMPLES) * FRAME_MS];
  }
}

/** Everything a detector's push returned over the audio, with the stamp of the frame that gave it. */
export function collect<T>(
  pcm: Int16Array,
  push: (frame: Int16Array, atMs: number) => T | undefined,
  startMs = 0,
): { event: T; frameMs: number }[] {
  const out: { event: T; frameMs: number }[] = [];
  for (const [frame, atMs] of frames(pcm, startMs)) {
    const event = push(frame, atMs);
    if (event !== undefined) out.push({ event, frameMs: atMs });
  }
  return out;
}
