import type { Logger } from '@voice/shared';
import type { CallRow } from '../db/call-rows';
import { dealTurns } from '../domain/fair-turns';

/** What became of a batch handed to `dial`. */
export interface DialOutcome {
  /** Calls not dialed because their account is at its limit: they wait for a slot. */
  held: ReadonlySet<string>;
  /** Slots each account of the batch has free now, those just dialed counted. */
  free: ReadonlyMap<string, number>;
}

export interface DialQueueOptions {
  /** Calls handed to the carrier per second at most; also the largest burst. */
  perSecond: number;
  /**
   * Marks a batch dialed within each account's limit and hands those to the carrier. Rejecting
   * puts the batch back at the head of its lines for a later turn (a database that did not answer).
   * A call neither dialed nor held (taken over, ended) leaves the queue.
   */
  dial: (rows: CallRow[]) => Promise<DialOutcome>;
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
 * How often an account held at its limit is tried again (one call) when no call of it ended here:
 * its calls may end on another instance, or its limit may have been raised.
 */
export const HELD_RECHECK_MS = 500;
/**
 * Express dials (below) in flight at once, each of another account: enough that accounts placing
 * a call now and then rarely find the way taken by another's (they would wait for the next batch),
 * few enough to bound the dial transactions an instance has open.
 */
const EXPRESS_FLIGHTS = 4;

/** One account's waiting calls, in the order they came, and what it may start now. */
class Line {
  rows: CallRow[] = [];
  /** Index of the first waiting row (shifting a long array per batch would be quadratic). */
  head = 0;
  /** See domain/fair-turns.ts: Infinity until the database said how many slots are free. */
  allowance = Number.POSITIVE_INFINITY;

  get size(): number {
    return this.rows.length - this.head;
  }

  take(count: number): CallRow[] {
    const taken = this.rows.slice(this.head, this.head + count);
    this.head += count;
    if (this.head > 1024 && this.head * 2 > this.rows.length) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
    return taken;
  }

  /** Puts calls back at the front, in their order (they keep their turn within the account). */
  giveBack(rows: CallRow[]): void {
    this.rows = [...rows, ...this.rows.slice(this.head)];
    this.head = 0;
  }
}

/**
 * Accepted calls wait here for their turn at the carrier: a token bucket of `perSecond`, like a
 * carrier trunk's calls-per-second limit, dealt round-robin between accounts (domain/fair-turns),
 * each account's calls in the order they came. Accepting a call never waits for dialing (POST
 * /v1/call answers at once), a burst is dialed at the rate the trunk takes, one account's burst
 * does not delay another's calls, and an account at its concurrent-call limit is skipped until a
 * call of it ends (here: at once; elsewhere: within HELD_RECHECK_MS). Each call's row carries this
 * instance's lease while it waits, so a crash hands the waiting calls to another instance.
 */
export class DialQueue {
  /** Accounts with waiting calls, in serving order (insertion order; `cursor` marks the next). */
  private readonly lines = new Map<string, Line>();
  private readonly queued = new Set<string>();
  private cursor = 0;
  private tokens: number;
  private refilledAt = Date.now();
  private lastBatchAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private recheck: NodeJS.Timeout | undefined;
  private batch: Promise<void> | undefined;
  /** Calls dialed on their own (express) and not answered yet, and their accounts. */
  private readonly flights = new Set<Promise<void>>();
  private readonly expressing = new Set<string>();
  /** The accounts of the batch in flight. */
  private batchAccounts = new Set<string>();
  private stopped = false;

  constructor(private readonly options: DialQueueOptions) {
    this.tokens = options.perSecond;
  }

  get size(): number {
    return this.queued.size;
  }

  push(row: CallRow): void {
    if (this.stopped || this.queued.has(row.id)) return;
    if (this.express(row)) return;
    this.queued.add(row.id);
    this.lineOf(row.account_id).rows.push(row);
    this.schedule(Math.max(0, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
  }

  /**
   * A call of an account with nothing waiting is dialed at once when a token is free, in a batch
   * of its own beside the one in flight, instead of waiting for the next batch (up to
   * BATCH_GAP_MS plus the batch in flight): tokens accrue between batches, so another account's
   * backlog leaves some for it. The rate holds (it spends a token like any dial); the rest of the
   * account's calls take their turns.
   */
  private express(row: CallRow): boolean {
    const account = row.account_id;
    const line = this.lines.get(account);
    // Never ahead of the account's own calls: none waiting, none in the batch in flight.
    if (line && (line.size > 0 || line.allowance < 1)) return false;
    // One such call per account in flight, EXPRESS_FLIGHTS in all, however many accounts trickle calls in.
    if (this.expressing.size >= EXPRESS_FLIGHTS || this.expressing.has(account)) return false;
    if (this.batchAccounts.has(account)) return false;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    this.expressing.add(account);
    const flight = this.options.dial([row]).then(
      (outcome) => this.settle([row], outcome),
      (error: unknown) => {
        this.options.log.warn({ err: error, calls: 1 }, 'dialing a call failed; retrying it');
        this.tokens += 1;
        this.requeue([row]);
      },
    );
    this.flights.add(flight);
    void flight.finally(() => {
      this.flights.delete(flight);
      this.expressing.delete(account);
      if (this.size > 0) this.schedule(Math.max(0, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
    });
    return true;
  }

  /** A call of the account ended (or its limit changed): one slot more, at least. */
  freed(accountId: string, slots = 1): void {
    const line = this.lines.get(accountId);
    if (!line || this.stopped) return;
    line.allowance = Math.max(line.allowance, 0) + slots;
    this.schedule(Math.max(0, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
  }

  /** Waiting calls per account (the metrics' view). */
  waitingByAccount(): Map<string, number> {
    return new Map([...this.lines].map(([account, line]) => [account, line.size]));
  }

  /** Accounts whose calls wait here held at their limit. */
  heldAccounts(): number {
    let held = 0;
    for (const line of this.lines.values()) if (line.allowance <= 0) held++;
    return held;
  }

  ids(): string[] {
    return [...this.queued];
  }

  /** Stops dialing; answers the calls that were still waiting (their leases are to be released). */
  async stop(): Promise<string[]> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.recheck);
    this.timer = undefined;
    await Promise.all([this.batch, ...this.flights]);
    const left = this.ids();
    this.lines.clear();
    this.queued.clear();
    return left;
  }

  private lineOf(accountId: string): Line {
    let line = this.lines.get(accountId);
    if (!line) {
      line = new Line();
      this.lines.set(accountId, line);
    }
    return line;
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.batch) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, delayMs);
  }

  /** Held accounts get one call's try after HELD_RECHECK_MS, unless a call of theirs ends first. */
  private scheduleRecheck(): void {
    if (this.stopped || this.recheck) return;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      let any = false;
      for (const line of this.lines.values()) {
        if (line.allowance > 0) continue;
        line.allowance = 1;
        any = true;
      }
      if (any) this.schedule(0);
    }, HELD_RECHECK_MS);
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
    // A batch leaves a token in the bucket for each express flight (kept, not lost: the rate is the
    // same), so that calls of accounts with nothing waiting, arriving close together, each find one
    // and go at once (express). Less than the bucket holds, or the batches would never go.
    const reserve = Math.min(EXPRESS_FLIGHTS, Math.max(0, Math.floor(this.options.perSecond) - 1));
    const budget = Math.floor(this.tokens) - reserve;
    if (budget < 1) {
      this.schedule(Math.ceil(((1 + reserve - this.tokens) / this.options.perSecond) * 1000));
      return;
    }
    const accounts = [...this.lines.keys()];
    const lines = accounts.map((account) => this.lines.get(account)!);
    const turns = dealTurns(
      lines.map((line) => ({ waiting: line.size, allowance: line.allowance })),
      this.cursor,
      budget,
    );
    const rows: CallRow[] = [];
    turns.take.forEach((count, i) => {
      if (count === 0) return;
      const line = lines[i]!;
      line.allowance -= count;
      rows.push(...line.take(count));
    });
    if (rows.length === 0) {
      // Every account with waiting calls is at its limit: a call ending (freed) or the re-check wakes us.
      this.scheduleRecheck();
      return;
    }
    this.tokens -= rows.length;
    this.lastBatchAt = Date.now();
    for (const row of rows) this.queued.delete(row.id);
    this.batchAccounts = new Set(rows.map((row) => row.account_id));
    this.rotate(accounts, turns.next);
    this.batch = this.options
      .dial(rows)
      .then(
        (outcome) => {
          this.settle(rows, outcome);
          return 0;
        },
        (error: unknown) => {
          this.options.log.warn({ err: error, calls: rows.length }, 'dialing a batch failed; retrying it');
          this.tokens += rows.length;
          this.requeue(rows);
          return RETRY_AFTER_MS;
        },
      )
      .then((delay) => {
        this.batch = undefined;
        this.batchAccounts = new Set();
        this.forgetEmptyLines();
        if (this.size > 0) this.schedule(Math.max(delay, this.lastBatchAt + BATCH_GAP_MS - Date.now()));
      });
  }

  /** Held calls go back to the front of their lines; each account's allowance is what it has free. */
  private settle(rows: CallRow[], outcome: DialOutcome): void {
    const held = rows.filter((row) => outcome.held.has(row.id));
    this.tokens += held.length;
    this.requeue(held);
    for (const [account, free] of outcome.free) {
      const line = this.lines.get(account);
      if (line) line.allowance = free;
    }
    if (held.length > 0) this.scheduleRecheck();
  }

  /** Also while stopping: the calls are then among those stop() answers, to be handed back. */
  private requeue(rows: CallRow[]): void {
    const byAccount = new Map<string, CallRow[]>();
    for (const row of rows) {
      if (this.queued.has(row.id)) continue;
      this.queued.add(row.id);
      const list = byAccount.get(row.account_id) ?? [];
      list.push(row);
      byAccount.set(row.account_id, list);
    }
    for (const [account, list] of byAccount) this.lineOf(account).giveBack(list);
  }

  /** The next round starts at the account after the last one served (or the first still waiting after it). */
  private rotate(accounts: string[], next: number): void {
    this.forgetEmptyLines();
    const position = new Map([...this.lines.keys()].map((account, i) => [account, i]));
    this.cursor = 0;
    for (let i = 0; i < accounts.length; i++) {
      const at = position.get(accounts[(next + i) % accounts.length]!);
      if (at !== undefined) {
        this.cursor = at;
        return;
      }
    }
  }

  private forgetEmptyLines(): void {
    for (const [account, line] of this.lines) if (line.size === 0) this.lines.delete(account);
  }
}
