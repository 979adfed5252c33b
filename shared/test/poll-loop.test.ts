import { describe, expect, it } from 'vitest';
import { PollLoop } from '../src/service/poll-loop';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PollLoop', () => {
  it('runs one round at a time, runs again right after a wake that came during a round, and stops after the round under way', async () => {
    let running = 0;
    let overlap = false;
    const starts: number[] = [];
    let release: () => void = () => {};
    const loop = new PollLoop({
      intervalMs: 60_000,
      round: async () => {
        running++;
        overlap ||= running > 1;
        starts.push(Date.now());
        if (starts.length === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
      },
      onError: () => {},
    });
    loop.start();
    await sleep(20);
    expect(starts).toHaveLength(1);
    loop.wake();
    loop.wake();
    release();
    await sleep(20);
    // The wakes during the first round gave exactly one more, at once, not after the 60 s interval.
    expect(starts).toHaveLength(2);
    expect(overlap).toBe(false);
    await loop.stop();
    loop.wake();
    await sleep(20);
    expect(starts).toHaveLength(2);
    expect(loop.isStopped).toBe(true);
  });

  it('goes on after a round that throws, reporting it', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = new PollLoop({
      intervalMs: 5,
      round: async () => {
        rounds++;
        if (rounds === 1) throw new Error('boom');
      },
      onError: (error) => errors.push(error),
    });
    loop.start();
    await sleep(50);
    await loop.stop();
    expect(errors).toHaveLength(1);
    expect(rounds).toBeGreaterThan(1);
  });
});
