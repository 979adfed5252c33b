import { type Logger, type Plan, type Sql, withDeadline } from '@voice/shared';

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
}

type Outcome<R> = { row: R } | { error: unknown };

interface Batch<R> {
  /** Requests in the batch: the statement adds this many to the count. */
  n: number;
  send: (n: number) => Promise<R>;
  waiters: ((outcome: Outcome<R>, position: number, n: number) => void)[];
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
 * is using sends at once, so a lone request waits for nothing.
 *
 * For a key, the same statement checks that the key is still active (not revoked) and reads its
 * account's limit, so revocation takes effect on the next request everywhere without a separate
 * key lookup (see AccountStore's key cache).
 *
 * If the count cannot be had in time the request is let through (fail open) with the headers of a
 * fresh window: refusing every request because a counter is slow would be the worse outage.
 */
export class RateLimiter {
  private lastSweep = 0;
  private readonly open = new Map<string, Batch<unknown>>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Counts one request against `bucket` (a client IP's budget, say). */
  async hit(bucket: string, limit: number): Promise<RateLimitState> {
    const { outcome, position, n } = await this.join<CountRow>(`count ${bucket}`, (count) =>
      this.count(bucket, count),
    );
    if ('error' in outcome) return this.failedOpen(outcome.error, bucket, limit);
    const row = outcome.row;
    this.sweepOccasionally(row.window_start);
    return this.state(limit, row.count! - n + 1 + position, row.window_start, row.now);
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
    const { outcome, position, n } = await this.join<KeyCountRow>(`key ${bucket}`, (count) =>
      this.countKey(bucket, keyId, count),
    );
    if ('error' in outcome) {
      return { key: 'unverified', state: this.failedOpen(outcome.error, bucket, knownLimit) };
    }
    const row = outcome.row;
    if (row.active === null) return { key: 'absent' };
    if (!row.active || row.count === null) return { key: 'revoked' };
    this.sweepOccasionally(row.window_start);
    const limit = limitOf(row.plan!, row.rate_limit_per_minute);
    return {
      key: 'active',
      plan: row.plan!,
      rateLimitOverride: row.rate_limit_per_minute,
      state: this.state(limit, row.count - n + 1 + position, row.window_start, row.now),
    };
  }

  /**
   * Joins the open batch of `batchKey` (a bucket and the statement that counts it: a key's budget
   * is also counted by plain `hit`s, from WebSocket subscribes, and the two statements answer
   * differently); sends it at once when none of its statements is in flight. Two statements on one
   * bucket may be in flight together: each adds its own batch and reads the total after it, so the
   * places stay distinct.
   */
  private join<R>(
    batchKey: string,
    send: (n: number) => Promise<R>,
  ): Promise<{ outcome: Outcome<R>; position: number; n: number }> {
    return new Promise((resolve) => {
      let batch = this.open.get(batchKey) as Batch<R> | undefined;
      if (!batch) {
        batch = { n: 0, send, waiters: [] };
        this.open.set(batchKey, batch as Batch<unknown>);
      }
      batch.n++;
      batch.waiters.push((outcome, position, n) => resolve({ outcome, position, n }));
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
        const { n, waiters } = batch;
        for (let position = 0; position < waiters.length; position++)
          waiters[position]!(outcome, position, n);
      }
    } finally {
      this.busy.delete(batchKey);
    }
  }

  private async count(bucket: string, n: number): Promise<CountRow> {
    const [row] = await this.sql<CountRow[]>`
      WITH clock AS (
        SELECT extract(epoch FROM now())::bigint AS now,
               (extract(epoch FROM now())::bigint / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS} AS window_start
      )
      INSERT INTO gateway.rate_limit_windows (bucket, window_start, count)
      SELECT ${bucket}, window_start, ${n} FROM clock
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = gateway.rate_limit_windows.count + EXCLUDED.count
      RETURNING count, window_start::int AS window_start, (SELECT now::int FROM clock) AS now`;
    return row!;
  }

  /** One round trip: is the key active, what is its account's limit, and its count with these `n`. */
  private async countKey(bucket: string, keyId: string, n: number): Promise<KeyCountRow> {
    const [row] = await this.sql<KeyCountRow[]>`
      WITH clock AS (
        SELECT extract(epoch FROM now())::bigint AS now,
               (extract(epoch FROM now())::bigint / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS} AS window_start
      ), key AS (
        SELECT k.revoked_at IS NULL AS active, a.plan, a.rate_limit_per_minute
        FROM gateway.api_keys k JOIN gateway.accounts a ON a.id = k.account_id
        WHERE k.id = ${keyId}
      ), counted AS (
        INSERT INTO gateway.rate_limit_windows (bucket, window_start, count)
        SELECT ${bucket}, window_start, ${n} FROM clock WHERE EXISTS (SELECT 1 FROM key WHERE active)
        ON CONFLICT (bucket, window_start) DO UPDATE SET count = gateway.rate_limit_windows.count + EXCLUDED.count
        RETURNING count, window_start
      )
      SELECT key.active, key.plan, key.rate_limit_per_minute, counted.count,
             coalesce(counted.window_start, clock.window_start)::int AS window_start, clock.now::int AS now
      FROM clock LEFT JOIN key ON true LEFT JOIN counted ON true`;
    return row!;
  }

  private failedOpen(error: unknown, bucket: string, limit: number): RateLimitState {
    this.log.warn(
      { err: error, bucket: bucket.split(':')[0] },
      'rate limit unavailable; letting the request through',
    );
    const now = Math.floor(Date.now() / 1000);
    return this.state(limit, 0, now - (now % WINDOW_SECONDS), now);
  }

  private state(limit: number, count: number, windowStart: number, now: number): RateLimitState {
    const resetAt = windowStart + WINDOW_SECONDS;
    return {
      limit,
      remaining: Math.max(0, limit - Math.max(count, 1)),
      resetAt,
      exceeded: count > limit,
      retryAfter: Math.max(1, resetAt - now),
    };
  }

  /** Old windows are useless; drop them about once a minute per instance, off the request path. */
  private sweepOccasionally(windowStart: number): void {
    if (windowStart <= this.lastSweep) return;
    this.lastSweep = windowStart;
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
