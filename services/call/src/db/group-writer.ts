interface Pending<T> {
  item: T;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

export interface GroupWriterOptions<T = unknown> {
  /** Statements in flight at once; items arriving meanwhile wait and go together. */
  concurrency?: number;
  /** Most items in one statement. */
  maxBatch?: number;
  /**
   * Items of one lane (an account) wait while a statement carrying one of them is in flight;
   * items of a lane with nothing in flight go at once, up to `concurrency` statements. One
   * account's stream of writes then groups as with a single statement in flight, while another
   * account's write does not wait out that stream's round trip.
   */
  laneOf?: (item: T) => string;
}

/**
 * Writes items the way a database groups commits: the items of one event-loop turn go in one
 * statement, and while `concurrency` statements are in flight, items that arrive wait and the
 * next statement writes all of them at once. Nothing waits for a timer when the service is quiet;
 * under load, each statement, round trip and commit serves several items. Each caller gets its answer only once its own item is committed.
 *
 * `writeAll` answers the ids it wrote; an item it did not write is answered false (its caller
 * decides what that means). A statement that fails is retried one item at a time, so one bad
 * item fails alone. Two items with the same id in one batch: only the first goes in that
 * statement, the later one is answered false once it committed, as if it had lost a race to a
 * committed write.
 *
 * With lanes (`laneOf`), a statement waits only for statements carrying items of its own lanes.
 */
export class GroupWriter<T extends { id: string }> {
  private readonly waiting: Pending<T>[] = [];
  private writing = 0;
  private readonly concurrency: number;
  private readonly maxBatch: number;
  private readonly laneOf: ((item: T) => string) | undefined;
  /** Lanes with a statement in flight (one at most each: takeFreeLanes skips the others). */
  private readonly busy = new Set<string>();

  constructor(
    private readonly writeAll: (items: readonly T[]) => Promise<Set<string>>,
    options: GroupWriterOptions<T> = {},
  ) {
    this.laneOf = options.laneOf;
    // One statement in flight: under load the next one carries everything that arrived meanwhile,
    // so statements carry more calls each than with two in flight (docs/performance.md).
    this.concurrency = options.concurrency ?? 1;
    this.maxBatch = options.maxBatch ?? 50;
  }

  /** Queues `item`; true once it is committed, false if `writeAll` did not write it. */
  write(item: T): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      // Sent at the end of this event-loop turn, not at once: items made by the same turn's
      // callbacks (calls of one dial batch failing together, requests read together) share the
      // statement instead of the first going alone. The wait is the rest of the turn, not a timer.
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(this.flush);
    });
  }

  private scheduled = false;

  private readonly flush = (): void => {
    this.scheduled = false;
    this.pump();
  };

  private pump(): void {
    while (this.writing < this.concurrency && this.waiting.length > 0) {
      const laneOf = this.laneOf;
      const batch = laneOf ? this.takeFreeLanes(laneOf) : this.waiting.splice(0, this.maxBatch);
      if (batch.length === 0) return;
      const lanes = laneOf ? new Set(batch.map((pending) => laneOf(pending.item))) : new Set<string>();
      for (const lane of lanes) this.busy.add(lane);
      this.writing++;
      void this.send(batch).finally(() => {
        this.writing--;
        for (const lane of lanes) this.busy.delete(lane);
        this.pump();
      });
    }
  }

  /** The waiting items, in arrival order, whose lanes have no statement in flight (up to maxBatch). */
  private takeFreeLanes(laneOf: (item: T) => string): Pending<T>[] {
    const batch: Pending<T>[] = [];
    const kept: Pending<T>[] = [];
    for (const pending of this.waiting) {
      if (batch.length < this.maxBatch && !this.busy.has(laneOf(pending.item))) batch.push(pending);
      else kept.push(pending);
    }
    this.waiting.splice(0, this.waiting.length, ...kept);
    return batch;
  }

  private async send(batch: Pending<T>[]): Promise<void> {
    const first = new Map<string, Pending<T>>();
    const later: Pending<T>[] = [];
    for (const pending of batch) {
      if (first.has(pending.item.id)) later.push(pending);
      else first.set(pending.item.id, pending);
    }
    const distinct = [...first.values()];
    try {
      const written = await this.writeAll(distinct.map((pending) => pending.item));
      for (const pending of distinct) pending.resolve(written.has(pending.item.id));
    } catch (error) {
      if (distinct.length === 1) distinct[0]!.reject(error);
      else await Promise.all(distinct.map((pending) => this.send([pending])));
    } finally {
      for (const pending of later) pending.resolve(false);
    }
  }
}
