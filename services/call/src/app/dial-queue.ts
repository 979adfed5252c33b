import type { Logger } from '@voice/shared';
import type { CallRow } from '../db/call-rows';

export interface DialQueueOptions {
  /** Calls handed to the carrier per second at most; also the largest burst. */
  perSecond: number;
  /**
   * Hands a batch to the carrier. Rejecting puts the batch back at the head of the queue for a
   * later turn (a database that did not answer).
   */
  dial: (rows: CallRow[]) => Promise<void>;
  log: Logger;
}

/** How long a failed batch waits before it is tried again. */
const RETRY_AFTER_MS = 500;
/**
 * Least time between two batches: under a steady stream, calls are marked dialed a few per
 * statement instead of one statement (and one commit) each. The first call after a quiet spell
 * goes at once.
 */
const BATCH_GAP_MS = 50;

/**
 * Accepted calls wait here, in order, for their turn at the carrier: a token bucket of
 * `perSecond`, like a carrier trunk's calls-per-second limit. Accepting a call therefore never
 * waits for dialing (POST /v1/call answers at once), and a burst of calls is dialed at the rate
 * the trunk takes instead of all at once. Each call's row carries this instance's lease while it
 * waits, so a crash hands the waiting calls to another instance like the live ones.
 */
export class DialQueue {
  private waiting: CallRow[] = [];
  private readonly queued = new Set<string>();
  /** Index of the first waiting row (shifting a long array per batch would be quadratic). */
  private head = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private lastBatchAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private batch: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: DialQueueOptions) {
    this.tokens = options.perSecond;
  }

  get size(): number {
    return this.waiting.length - this.head;
  }

  push(row: CallRow): void {
    if (this.stopped || this.queued.has(row.id)) return;
    this.queued.add(row.id);
    this.waiting.push(row);
    this.schedule(Math.max(0, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
  }

  ids(): string[] {
    const ids: string[] = [];
    for (let i = this.head; i < this.waiting.length; i++) ids.push(this.waiting[i]!.id);
    return ids;
  }

  /** Stops dialing; answers the calls that were still waiting (their leases are to be released). */
  async stop(): Promise<string[]> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.batch;
    const left = this.ids();
    this.waiting = [];
    this.head = 0;
    this.queued.clear();
    return left;
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.batch) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, delayMs);
  }

  private refill(): void {
    const now = Date.now();
    const rate = this.options.perSecond;
    this.tokens = Math.min(rate, this.tokens + ((now - this.refilledAt) / 1000) * rate);
    this.refilledAt = now;
  }

  private pump(): void {
    if (this.stopped || this.size === 0) return;
    this.refill();
    const count = Math.min(Math.floor(this.tokens), this.size);
    if (count < 1) {
      this.schedule(Math.ceil(((1 - this.tokens) / this.options.perSecond) * 1000));
      return;
    }
    this.tokens -= count;
    this.lastBatchAt = Date.now();
    const rows = this.waiting.slice(this.head, this.head + count);
    this.head += count;
    for (const row of rows) this.queued.delete(row.id);
    this.compact();
    this.batch = this.options
      .dial(rows)
      .then(
        () => 0,
        (error: unknown) => {
          this.options.log.warn({ err: error, calls: rows.length }, 'dialing a batch failed; retrying it');
          this.tokens += count;
          this.waiting.splice(this.head, 0, ...rows);
          for (const row of rows) this.queued.add(row.id);
          return RETRY_AFTER_MS;
        },
      )
      .then((delay) => {
        this.batch = undefined;
        if (this.size > 0) this.schedule(Math.max(delay, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
      });
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
  }
}
