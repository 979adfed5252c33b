import { describe, expect, it, vi } from 'vitest';
import { PollLoop } from '../src/service/poll-loop';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Far below the loop's 60 s interval: a round within it came from a wake, not the interval. */
const SOON = { timeout: 10_000, interval: 5 };

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
    await vi.waitFor(() => expect(starts).toHaveLength(1), SOON);
    loop.wake();
    loop.wake();
    release();
    // The wakes during the first round gave one more, at once, not after the 60 s interval...
    await vi.waitFor(() => expect(starts).toHaveLength(2), SOON);
    expect(overlap).toBe(false);
    await loop.stop();
    // ...and exactly one: none more once it ended (nor after stop, wake or not; a quiet 20 ms).
    expect(starts).toHaveLength(2);
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
    await vi.waitFor(() => expect(rounds).toBeGreaterThan(1), SOON);
    await loop.stop();
    expect(errors).toHaveLength(1);
  });
});
