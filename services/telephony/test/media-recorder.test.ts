import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import wavefile from 'wavefile';
import { WavRecorder } from '../src/media/wav-recorder';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'media-rec-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('call recorder', () => {
  it('writes a valid stereo 8 kHz 16-bit WAV, agent left and callee right, silence where a side is missing', async () => {
    const file = path.join(dir, 'call.wav');
    const recorder = await WavRecorder.create(file);
    const frames = 120; // 2.4 s: several flushes to disk
    for (let f = 0; f < frames; f++) {
      const left = f % 2 === 0 ? Int16Array.from({ length: 160 }, (_, i) => f * 100 + i) : undefined;
      const right = Int16Array.from({ length: 160 }, () => -f);
      recorder.write(left, right, 160);
    }
    await recorder.close();
    await recorder.close();
    const wav = new wavefile.WaveFile(await readFile(file));
    const fmt = wav.fmt as { numChannels: number; sampleRate: number; bitsPerSample: number };
    expect(fmt).toMatchObject({ numChannels: 2, sampleRate: 8000, bitsPerSample: 16 });
    const [left, right] = wav.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
    expect(left.length).toBe(frames * 160);
    expect(right.length).toBe(frames * 160);
    expect(left[0]).toBe(0);
    expect(left[159]).toBe(159);
    expect(left[160]).toBe(0); // frame 1: the agent said nothing
    expect(left[2 * 160 + 5]).toBe(205);
    expect(right[119 * 160]).toBe(-119);
  });
});
