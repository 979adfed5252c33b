import { type Logger, type Plan, type Sql, waitAtMost, withDeadline } from '@voice/shared';
import { DemandMeter, KeyLeases, LEASE_MAX, LEASE_MIN_RATE, LEASE_MS, type LeasedPlace } from './lease';
import { listenForRevocations, type RevocationFeed } from './revocations';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time, whole seconds, at which the current window ends. */
  resetAt: number;
  exceeded: boolean;
  /** Seconds until the window ends (at least 1), for Retry-After. */
  retryAfter: number;
}

/** A key's request charged to its budget, with what the database says about the key right now. */
export type KeyCharge =
  | {
      key: 'active';
      state: RateLimitState;
      /** The account's plan and limit override as they are now. */
      plan: Plan;
      rateLimitOverride: number | null;
    }
  | { key: 'revoked' | 'absent' }
  /** The database did not answer in time: nothing is known about the key; the count failed open. */
  | { key: 'unverified'; state: RateLimitState };

const WINDOW_SECONDS = 60;
/** Places not given back by then stay counted until their window ends: shutdown goes on. */
const GIVE_BACK_WAIT_MS = 2000;
/** A slow database must not hold every request hostage to the rate limiter. */
const HIT_DEADLINE_MS = 1000;

interface CountRow {
  count: number | null;
  window_start: number;
  now: number;
}

interface KeyCountRow extends CountRow {
  active: boolean | null;
  plan: Plan | null;
  rate_limit_per_minute: number | null;
  /** Places counted beyond the batch's requests, leased to this instance (0 if none). */
  granted: number | null;
  /** The database's clock, fractional Unix seconds. */
  now_exact: number;
}

type Outcome<R> = { row: R } | { error: unknown };

/** What one charge learns from its batch's statement: the last place it holds, or that it was refused. */
interface Placed<R> {
  outcome: Outcome<R>;
  /** Its last place in the count (or, refused, the place before it); undefined if nothing was counted. */
  last: number | undefined;
  /** An all-or-nothing charge that did not fit: its places were given back. */
  refused: boolean;
}

interface Waiter<R> {
  weight: number;
  /** The limit an all-or-nothing charge must fit under (see `hit`); undefined for a plain one. */
  wholeUnder: number | undefined;
  resolve: (placed: Placed<R>) => void;
}

interface Batch<R> {
  bucket: string;
  /** Places the batch's charges take: the statement adds this many to the count. */
  n: number;
  send: (n: number) => Promise<R>;
  /** The count before the batch's own places, and the window, from the statement's row (none: nothing counted). */
  before: (row: R, n: number) => { count: number; windowStart: number } | undefined;
  waiters: Waiter<R>[];
}

/**
 * Fixed one-minute windows counted in Postgres, so every gateway instance (and every transport:
 * REST, GraphQL, tRPC) draws on the same budget. The window comes from the database's clock, so
 * instances with skewed clocks still share one window.
 *
 * Each bucket has at most one statement in flight per instance: requests that arrive meanwhile wait
 * and are counted together by the next statement (`count + n`), each getting its own place in the
 * count (the batch's total less the ones after it). The count stays exact and shared: every request
 * is in the database before it is answered, as with one upsert per request, but a key sending many
 * requests at once costs one round trip per batch rather than one per request. A bucket nobody else
 * is using sends at once, so a lone request waits for nothing. A charge may take several places
 * (`weight`: a GraphQL document's root fields, a tRPC batch's calls); an all-or-nothing one that
 * does not fit takes none, and the batch gives its places back before the bucket's next count.
 *
 * For a key, the same statement checks that the key is still active (not revoked) and reads its
 * account's limit, so revocation takes effect on the next request everywhere without a separate
 * key lookup (see AccountStore's key cache).
 *
 * A key sending LEASE_MIN_RATE requests a second or more to this instance is counted ahead: the
 * statement also takes up to half a second of its recent traffic (LEASE_MAX at most, and never
 * more than half of what is left of its limit) as a lease of places, which its next requests use
 * without a round trip. The limit still holds exactly across instances (a place is only leased
 * within the limit, and each is used once); places not used when the lease ends (after LEASE_MS,
 * used up, or the window's end) are given back. What a lease skips is the key check: so it is
 * dropped the moment PostgreSQL announces a revocation (revocations.ts), a count sent before a
 * revocation was heard leases nothing, every lease is dropped whenever that announcement channel
 * (re)connects, none is granted before it first listens, and none is drawn on for more than
 * LEASE_MS (the bound that remains if the channel drops unnoticed). X-RateLimit-Remaining from
 * a lease does not see what other instances counted since it was granted.
 *
 * If the count cannot be had in time the request is let through (fail open) with the headers of a
 * fresh window: refusing every request because a counter is slow would be the worse outage.
 */
export class RateLimiter {
  private lastSweep = 0;
  private readonly open = new Map<string, Batch<unknown>>();
  private readonly busy = new Set<string>();
  private readonly demand = new DemandMeter();
  private readonly leases = new KeyLeases((bucket, windowStart, unused) =>
    this.giveBack(bucket, windowStart, unused),
  );
  private readonly givingBack = new Set<Promise<unknown>>();
  private readonly revocations: RevocationFeed;

  /** Charges answered from a lease, without a round trip (for tests and operators). */
  leasedTotal = 0;
  /**
   * Revocations heard so far (any key). A count sent before one was heard may have read that key
   * as active just before the revocation committed: its lease is not held.
   */
  private revocationsHeard = 0;
  private readonly leaseMs: number;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    options: { leaseMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.revocations = listenForRevocations(sql, log, {
      onRevoked: (keyId) => this.forgetKey(keyId),
      onListening: () => {
        // Announcements made while not listening are lost: trust nothing granted before.
        this.revocationsHeard++;
        this.leases.dropAll();
      },
    });
  }

  /** The key's lease ends at once: its next request is checked and counted in the database. */
  forgetKey(keyId: string): void {
    this.revocationsHeard++;
    this.leases.drop(`key:${keyId}`);
  }

  /** Gives back unused leased places and stops listening; the database is still needed meanwhile. */
  async close(): Promise<void> {
    // Stopping ends listening at once, so no count in flight or to come leases anything.
    await this.revocations.stop();
    this.leases.dropAll();
    await waitAtMost(Promise.allSettled([...this.givingBack]), GIVE_BACK_WAIT_MS);
  }

  /**
   * Counts `weight` places against `bucket`: a request on a client IP's budget, say, or what a
   * request costs beyond the one place the edge charged for it (a GraphQL document's root fields, a
   * tRPC batch's calls). With `whole`, the charge is all or nothing: if its places do not all fit
   * under `limit` it is refused (`exceeded`, `remaining` what was left) and they are given back, so
   * asking for more than is left costs nothing. A plain charge counts even when refused, as a
   * request past the limit always has. A key's lease on this instance serves the charge if it holds
   * enough places (they are within the limit).
   */
  async hit(bucket: string, limit: number, weight = 1, whole = false): Promise<RateLimitState> {
    if (bucket.startsWith('key:')) {
      this.demand.hit(bucket, weight);
      const leased = this.leases.take(bucket, weight);
      if (leased) return this.fromLease(leased);
    }
    const { outcome, last, refused } = await this.join<CountRow>(
      bucket,
      'count',
      { weight, wholeUnder: whole ? limit : undefined },
      (n) => this.count(bucket, n),
      (row, n) => ({ count: row.count! - n, windowStart: row.window_start }),
    );
    if ('error' in outcome) return this.failedOpen(outcome.error, bucket, limit);
    const row = outcome.row;
    this.sweepOccasionally(row.window_start);
    return this.state(limit, last!, row.window_start, row.now, refused);
  }

  /**
   * Counts one request against an API key's budget, checking in the same statement that the key is
   * active. A revoked or unknown key is not counted (its request is the caller's to charge elsewhere).
   */
  async hitKey(
    keyId: string,
    limitOf: (plan: Plan, override: number | null) => number,
    /** The limit to report if the database does not answer (the one last known). */
    knownLimit: number,
  ): Promise<KeyCharge> {
    const bucket = `key:${keyId}`;
    this.demand.hit(bucket, 1);
    const leased = this.leases.take(bucket, 1);
    if (leased) {
      const { lease } = leased;
      return {
        key: 'active',
        plan: lease.plan,
        rateLimitOverride: lease.rateLimitOverride,
        state: this.fromLease(leased),
      };
    }
    const { outcome, last } = await this.join<KeyCountRow>(
      bucket,
      'key',
      { weight: 1, wholeUnder: undefined },
      (n) => this.countKey(bucket, keyId, n, limitOf, knownLimit),
      // The batch's requests come before the places leased after them.
      (row, n) =>
        row.count === null
          ? undefined
          : { count: row.count - (row.granted ?? 0) - n, windowStart: row.window_start },
    );
    if ('error' in outcome) {
      return { key: 'unverified', state: this.failedOpen(outcome.error, bucket, knownLimit) };
    }
    const row = outcome.row;
    if (row.active === null) return { key: 'absent' };
    if (!row.active || row.count === null) return { key: 'revoked' };
    this.sweepOccasionally(row.window_start);
    return {
      key: 'active',
      plan: row.plan!,
      rateLimitOverride: row.rate_limit_per_minute,
      state: this.state(limitOf(row.plan!, row.rate_limit_per_minute), last!, row.window_start, row.now),
    };
  }

  private fromLease(leased: LeasedPlace): RateLimitState {
    this.leasedTotal++;
    const { lease } = leased;
    return this.state(lease.limit, leased.position, lease.windowStart, Math.floor(leased.nowDb));
  }

  /** How many places to lease with the key's next count: none unless it is busy on this instance. */
  private leaseWanted(bucket: string): number {
    const rate = this.demand.rate(bucket);
    if (rate < LEASE_MIN_RATE || !this.revocations.listening || this.leases.has(bucket)) return 0;
    return Math.min(LEASE_MAX, Math.ceil((rate * this.leaseMs) / 1000));
  }

  /**
   * Joins the open batch of `bucket`'s `statement` (a key's budget is also counted by plain `hit`s,
   * and the two statements answer differently); sends it at once when none of its statements is in
   * flight. Two statements on one bucket may be in flight together: each adds its own batch and
   * reads the total after it, so the places stay distinct.
   */
  private join<R>(
    bucket: string,
    statement: 'count' | 'key',
    charge: Omit<Waiter<R>, 'resolve'>,
    send: Batch<R>['send'],
    before: Batch<R>['before'],
  ): Promise<Placed<R>> {
    const batchKey = `${statement} ${bucket}`;
    return new Promise((resolve) => {
      let batch = this.open.get(batchKey) as Batch<R> | undefined;
      if (!batch) {
        batch = { bucket, n: 0, send, before, waiters: [] };
        this.open.set(batchKey, batch as Batch<unknown>);
      }
      batch.n += charge.weight;
      batch.waiters.push({ ...charge, resolve });
      if (!this.busy.has(batchKey)) void this.drain(batchKey);
    });
  }

  private async drain(batchKey: string): Promise<void> {
    this.busy.add(batchKey);
    try {
      for (let batch = this.open.get(batchKey); batch; batch = this.open.get(batchKey)) {
        this.open.delete(batchKey);
        let outcome: Outcome<unknown>;
        try {
          outcome = { row: await withDeadline(batch.send(batch.n), HIT_DEADLINE_MS, 'rate limit count') };
        } catch (error) {
          outcome = { error };
        }
        await this.place(batch, outcome);
      }
    } finally {
      this.busy.delete(batchKey);
    }
  }

  /**
   * Gives each charge of a batch its places, in the order they came: an all-or-nothing charge that
   * does not fit under its limit takes none, and its places go back in one statement. A refused
   * charge is answered once they are back (so the client's next request is not refused for them),
   * and the bucket's next batch is counted after that too.
   */
  private async place<R>(batch: Batch<R>, outcome: Outcome<R>): Promise<void> {
    const start = 'row' in outcome ? batch.before(outcome.row, batch.n) : undefined;
    let at = start?.count;
    const refused: { waiter: Waiter<R>; placed: Placed<R> }[] = [];
    for (const waiter of batch.waiters) {
      if (at === undefined) {
        waiter.resolve({ outcome, last: undefined, refused: false });
        continue;
      }
      const end = at + waiter.weight;
      if (waiter.wholeUnder !== undefined && end > waiter.wholeUnder) {
        refused.push({ waiter, placed: { outcome, last: at, refused: true } });
        continue;
      }
      at = end;
      waiter.resolve({ outcome, last: end, refused: false });
    }
    if (!start || refused.length === 0) return;
    const places = refused.reduce((sum, { waiter }) => sum + waiter.weight, 0);
    await waitAtMost(this.giveBack(batch.bucket, start.windowStart, places), HIT_DEADLINE_MS);
    for (const { waiter, placed } of refused) waiter.resolve(placed);
  }

  private async count(bucket: string, n: number): Promise<CountRow> {
    const [row] = await this.sql<CountRow[]>`
      WITH clock AS (
        SELECT floor(extract(epoch FROM now()))::bigint AS now,
               (floor(extract(epoch FROM now()))::bigint / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS} AS window_start
      )
      INSERT INTO gateway.rate_limit_windows (bucket, window_start, count)
      SELECT ${bucket}, window_start, ${n} FROM clock
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = gateway.rate_limit_windows.count + EXCLUDED.count
      RETURNING count, window_start::int AS window_start, (SELECT now::int FROM clock) AS now`;
    return row!;
  }

  /**
   * One round trip: is the key active, what is its account's limit, and its count with these `n`
   * (plus the places leased, if the key is busy: `granted`, capped by the limit the caller knows).
   */
  private async countKey(
    bucket: string,
    keyId: string,
    n: number,
    limitOf: (plan: Plan, override: number | null) => number,
    knownLimit: number,
  ): Promise<KeyCountRow> {
    const wanted = this.leaseWanted(bucket);
    const sentAt = Date.now();
    const heardBefore = this.revocationsHeard;
    const [row] = await this.sql<KeyCountRow[]>`
      WITH clock AS (
        -- floor: a cast to bigint would round, starting each window half a second early.
        SELECT floor(extract(epoch FROM now()))::bigint AS now, extract(epoch FROM now())::float8 AS now_exact,
               (floor(extract(epoch FROM now()))::bigint / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS} AS window_start
      ), key AS (
        SELECT k.revoked_at IS NULL AS active, a.plan, a.rate_limit_per_minute
        FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
        WHERE k.id = ${keyId}
      ), counted AS (
        INSERT INTO gateway.rate_limit_windows AS w (bucket, window_start, count, granted)
        SELECT ${bucket}, window_start, ${n}::int + g.granted, g.granted
        FROM clock, LATERAL (SELECT least(${wanted}::int, greatest(0, (${knownLimit}::int - ${n}::int) / 2)) AS granted) g
        WHERE EXISTS (SELECT 1 FROM key WHERE active)
        ON CONFLICT (bucket, window_start) DO UPDATE SET
          count = w.count + ${n}::int + least(${wanted}::int, greatest(0, (${knownLimit}::int - w.count - ${n}::int) / 2)),
          granted = least(${wanted}::int, greatest(0, (${knownLimit}::int - w.count - ${n}::int) / 2))
        RETURNING count, granted, window_start
      )
      SELECT key.active, key.plan, key.rate_limit_per_minute, counted.count, counted.granted,
             coalesce(counted.window_start, clock.window_start)::int AS window_start, clock.now::int AS now,
             clock.now_exact
      FROM clock LEFT JOIN key ON true LEFT JOIN counted ON true`;
    const granted = row!.granted ?? 0;
    if (granted > 0) {
      const trusted = this.revocationsHeard === heardBefore && this.revocations.listening;
      if (trusted) this.lease(bucket, row!, granted, sentAt, limitOf, knownLimit);
      else this.giveBack(bucket, row!.window_start, granted);
    }
    return row!;
  }

  /** Holds the places a count leased, unless the key's limit turned out other than the one capped by. */
  private lease(
    bucket: string,
    row: KeyCountRow,
    granted: number,
    sentAt: number,
    limitOf: (plan: Plan, override: number | null) => number,
    knownLimit: number,
  ): void {
    const count = row.count!;
    const limit = limitOf(row.plan!, row.rate_limit_per_minute);
    if (limit !== knownLimit) {
      this.giveBack(bucket, row.window_start, granted);
      return;
    }
    // From when the statement was sent, so the lease ends before the window does by either clock.
    const windowLeftMs = (row.window_start + WINDOW_SECONDS - row.now_exact) * 1000;
    this.leases.grant({
      bucket,
      next: count - granted + 1,
      last: count,
      limit,
      plan: row.plan!,
      rateLimitOverride: row.rate_limit_per_minute,
      windowStart: row.window_start,
      grantedAtDb: row.now_exact,
      grantedAtLocal: sentAt,
      expiresAt: sentAt + Math.min(this.leaseMs, windowLeftMs),
    });
  }

  /** Places back to the key's window (a lease's unused ones, a refused charge's), so nobody is refused for them. */
  private giveBack(bucket: string, windowStart: number, unused: number): Promise<unknown> {
    const done = this.sql`
      UPDATE gateway.rate_limit_windows SET count = greatest(0, count - ${unused}::int)
      WHERE bucket = ${bucket} AND window_start = ${windowStart}`
      .catch((error: unknown) =>
        this.log.warn({ err: error }, 'could not give back leased rate-limit places'),
      )
      .finally(() => this.givingBack.delete(done));
    this.givingBack.add(done);
    return done;
  }

  private failedOpen(error: unknown, bucket: string, limit: number): RateLimitState {
    this.log.warn(
      { err: error, bucket: bucket.split(':')[0] },
      'rate limit unavailable; letting the request through',
    );
    const now = Math.floor(Date.now() / 1000);
    return this.state(limit, 0, now - (now % WINDOW_SECONDS), now);
  }

  /** The budget after the place `count` (before it, for a `refused` charge, which holds none). */
  private state(
    limit: number,
    count: number,
    windowStart: number,
    now: number,
    refused = false,
  ): RateLimitState {
    const resetAt = windowStart + WINDOW_SECONDS;
    return {
      limit,
      remaining: Math.max(0, limit - Math.max(count, 1)),
      resetAt,
      exceeded: refused || count > limit,
      retryAfter: Math.max(1, resetAt - now),
    };
  }

  /** Old windows are useless; drop them about once a minute per instance, off the request path. */
  private sweepOccasionally(windowStart: number): void {
    if (windowStart <= this.lastSweep) return;
    this.lastSweep = windowStart;
    this.demand.sweep();
    this
      .sql`DELETE FROM gateway.rate_limit_windows WHERE window_start < ${windowStart - WINDOW_SECONDS}`.catch(
      (error: unknown) => this.log.warn({ err: error }, 'rate limit sweep failed'),
    );
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, number> {
  return {
    'x-ratelimit-limit': state.limit,
    'x-ratelimit-remaining': state.remaining,
    'x-ratelimit-reset': state.resetAt,
  };
}
