import { PollLoop, type PollLoopOptions } from './poll-loop';

/**
 * A worker that claims work from the database in PollLoop rounds and may run what it claimed in
 * the background (dispatching calls, sending webhooks). Stopping waits for the round under way and
 * for that background work, so nothing claimed is dropped half done by this process.
 */
export abstract class PollWorker {
  protected readonly loop: PollLoop;
  private readonly background = new Set<Promise<void>>();

  constructor(options: Omit<PollLoopOptions, 'round'>) {
    this.loop = new PollLoop({ ...options, round: () => this.round() });
  }

  /** One round of claiming; PollLoop never runs two at once. */
  protected abstract round(): Promise<void>;

  start(): void {
    this.loop.start();
  }

  /** Something may be due now (stored, started, a slot freed): look without waiting for the poll. */
  wake(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.background]);
  }

  /** Runs `work` in the background until it settles; `stop` waits for it. */
  protected track(work: Promise<void>): void {
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /** How many tracked pieces of work have not settled yet. */
  protected get inBackground(): number {
    return this.background.size;
  }
}
