import { describe, expect, it } from 'vitest';
import { Frames, framesOf } from '../src/speech/tts';

const ramp = (from: number, length: number) => Int16Array.from({ length }, (_, i) => from + i);

describe('frames', () => {
  it('hands out whole 160-sample frames in order and pads the last one', async () => {
    const chunks = [ramp(0, 100), ramp(100, 7), ramp(107, 400), ramp(507, 1)];
    async function* stream() {
      yield* chunks;
    }
    const frames: Int16Array[] = [];
    for await (const frame of framesOf(stream())) frames.push(frame);
    expect(frames.map((f) => f.length)).toEqual([160, 160, 160, 160]);
    const all = Int16Array.from(frames.flatMap((f) => [...f]));
    expect([...all.subarray(0, 508)]).toEqual([...ramp(0, 508)]);
    expect(all.subarray(508).every((s) => s === 0)).toBe(true);
  });

  it('gives multiples of a frame, keeping the rest for later', () => {
    const frames = new Frames();
    expect(frames.push(ramp(0, 100)).length).toBe(0);
    expect(frames.push(ramp(100, 300))).toEqual(ramp(0, 320));
    expect(frames.flush()).toEqual(Int16Array.from({ length: 160 }, (_, i) => (i < 80 ? 320 + i : 0)));
    expect(frames.flush().length).toBe(0);
  });
});
