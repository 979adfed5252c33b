import { describe, expect, it, vi } from 'vitest';
import { PollWorker } from '../src/service/poll-worker';

const SOON = { timeout: 10_000, interval: 5 };

/** Each round starts one piece of background work that ends only when the test releases it. */
class Gated extends PollWorker {
  readonly releases: (() => void)[] = [];
  readonly counts: number[] = [];
  finished = 0;

  constructor() {
    super({ intervalMs: 60_000, onError: () => {} });
  }

  protected async round(): Promise<void> {
    this.counts.push(this.inBackground);
    const work = new Promise<void>((resolve) => this.releases.push(resolve)).then(() => {
      this.finished++;
    });
    this.track(work);
  }
}

describe('PollWorker', () => {
  it('counts its background work until it settles, and stop waits for the work under way', async () => {
    const worker = new Gated();
    worker.start();
    await vi.waitFor(() => expect(worker.releases).toHaveLength(1), SOON);
    worker.wake();
    await vi.waitFor(() => expect(worker.releases).toHaveLength(2), SOON);
    // The second round saw the first round's work still out.
    expect(worker.counts).toEqual([0, 1]);
    worker.releases[0]!();
    await vi.waitFor(() => expect(worker.finished).toBe(1), SOON);
    worker.wake();
    await vi.waitFor(() => expect(worker.counts).toEqual([0, 1, 1]), SOON);

    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    // Two pieces are still out: stop has not returned (a few event-loop turns to give it the chance).
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    worker.releases[1]!();
    worker.releases[2]!();
    await stopping;
    expect(worker.finished).toBe(3);
  });
});
