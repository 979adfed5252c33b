/** Remembers running handlers so close() can wait for them. */
export class InFlight {
  private readonly running = new Set<Promise<void>>();

  run(work: () => Promise<void>): void {
    const promise = work().catch(() => {});
    this.running.add(promise);
    void promise.finally(() => this.running.delete(promise));
  }

  async settled(): Promise<void> {
    // A finishing handler may not start another, but loop anyway rather than miss one.
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

/** A counting semaphore: bounds how many durable handlers one replica runs at once. */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
}
