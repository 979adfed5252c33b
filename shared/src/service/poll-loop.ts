export interface PollLoopOptions {
  /** How long after a round the next one runs when nobody woke the loop. */
  intervalMs: number;
  /** One round of work; never run twice at once. */
  round: () => Promise<void>;
  /** A round that threw: logged by the owner, and the loop goes on. */
  onError: (error: unknown) => void;
}

/**
 * The background loop of a worker that claims work from the database: one round at a time, again
 * after `intervalMs`, or at once when woken (a wake during a round runs another right after it, so
 * no wake is lost). Stopping waits for the round under way.
 */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: PollLoopOptions) {}

  start(): void {
    this.schedule(0);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.again = false;
      this.running = this.options
        .round()
        .catch(this.options.onError)
        .finally(() => {
          this.running = undefined;
          this.schedule(this.again ? 0 : this.options.intervalMs);
        });
    }, ms);
  }
}
