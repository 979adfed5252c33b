import type { BoardCall } from './board-call';

/**
 * The calls board's rows: the newest calls by id, updated in place as statuses change. A stream of
 * 1,000 calls a minute must not grow the page without bound nor re-render per event, so the store
 * keeps at most `limit` rows (the newest) and tells its listener at most every FLUSH_MS, in an
 * animation frame (docs/dashboard.md, "Performance").
 */
const FLUSH_MS = 250;

export class BoardStore {
  private readonly rows = new Map<string, BoardCall>();
  private pending = false;
  private lastFlush = 0;
  private sorted: BoardCall[] = [];
  /** Events applied since the board opened (shown, and read by the performance test). */
  updates = 0;

  constructor(
    private readonly limit: number,
    private readonly changed: (rows: BoardCall[]) => void,
  ) {}

  /** A call as a list or the subscription gives it: replaces the row of the same id. */
  put(call: BoardCall): void {
    this.updates += 1;
    const known = this.rows.get(call.id);
    // The subscription may deliver an older state late (a redelivery): keep the final one.
    if (known && isFinal(known.status) && !isFinal(call.status)) return;
    this.rows.set(call.id, call);
    this.schedule();
  }

  putAll(calls: BoardCall[]): void {
    for (const call of calls) this.put(call);
  }

  clear(): void {
    this.rows.clear();
    this.schedule();
  }

  private schedule(): void {
    if (this.pending) return;
    this.pending = true;
    const wait = Math.max(0, this.lastFlush + FLUSH_MS - performance.now());
    setTimeout(
      () =>
        requestAnimationFrame(() => {
          this.pending = false;
          this.lastFlush = performance.now();
          this.flush();
        }),
      wait,
    );
  }

  private flush(): void {
    let rows = [...this.rows.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    if (rows.length > this.limit) {
      for (const dropped of rows.slice(this.limit)) this.rows.delete(dropped.id);
      rows = rows.slice(0, this.limit);
    }
    this.sorted = rows;
    this.changed(this.sorted);
  }
}

const FINAL = new Set(['COMPLETED', 'NO_ANSWER', 'FAILED', 'VOICEMAIL', 'BUSY']);
function isFinal(status: string): boolean {
  return FINAL.has(status);
}
