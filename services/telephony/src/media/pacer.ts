import { performance } from 'node:perf_hooks';

/**
 * Calls `onTick` every `periodMs` on a schedule fixed to a monotonic clock, so timer lateness
 * never accumulates into drift. After a stall (a busy event loop) it runs at most `maxCatchUp`
 * ticks at once and reports the rest as skipped, rather than bursting packets at the far end.
 */
export class Pacer {
  #timer: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #ticks = 0;

  constructor(
    private readonly periodMs: number,
    private readonly onTick: (nowMs: number) => void,
    private readonly onSkip: (skipped: number) => void,
    private readonly maxCatchUp = 3,
  ) {}

  get running(): boolean {
    return this.#timer !== undefined;
  }

  start(): void {
    if (this.#timer) return;
    this.#startedAt = performance.now();
    this.#ticks = 0;
    this.#schedule();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    const due = this.#startedAt + (this.#ticks + 1) * this.periodMs;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, due - performance.now()));
  }

  #fire(): void {
    const now = performance.now();
    let due = Math.floor((now - this.#startedAt) / this.periodMs) - this.#ticks;
    if (due > this.maxCatchUp) {
      this.onSkip(due - this.maxCatchUp);
      this.#ticks += due - this.maxCatchUp;
      due = this.maxCatchUp;
    }
    for (let i = 0; i < due && this.#timer; i++) {
      this.#ticks++;
      this.onTick(now);
    }
    if (this.#timer) this.#schedule();
  }
}
