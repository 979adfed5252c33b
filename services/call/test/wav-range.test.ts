import { describe, expect, it } from 'vitest';
import { synthesizeRecording } from '../src/carrier/wav';

async function bytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}

describe('recording ranges', () => {
  it('produces from any offset exactly the bytes of the whole file at that offset', async () => {
    const id = '22222222-2222-4222-8222-222222222222';
    const whole = await bytes(synthesizeRecording(id, 7).stream);
    for (const offset of [0, 10, 44, 45, 16_044, 16_045, 50_000, whole.length - 1]) {
      const part = await bytes(synthesizeRecording(id, 7, offset).stream);
      expect(part.equals(whole.subarray(offset)), `offset ${offset}`).toBe(true);
    }
    expect((await bytes(synthesizeRecording(id, 7, whole.length).stream)).length).toBe(0);
  });
});
