import { type Logger, type Sql, withDeadline } from '@voice/shared';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time, whole seconds, at which the current window ends. */
  resetAt: number;
  exceeded: boolean;
  /** Seconds until the window ends (at least 1), for Retry-After. */
  retryAfter: number;
}

const WINDOW_SECONDS = 60;
/** A slow database must not hold every request hostage to the rate limiter. */
const HIT_DEADLINE_MS = 1000;

/**
 * Fixed one-minute windows counted in Postgres, so every gateway instance (and every transport:
 * REST, GraphQL, tRPC) draws on the same budget. The window comes from the database's clock, so
 * instances with skewed clocks still share one window. One upsert per request.
 *
 * If the count cannot be had in time the request is let through (fail open) with the headers of a
 * fresh window: refusing every request because a counter is slow would be the worse outage.
 */
export class RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  async hit(bucket: string, limit: number): Promise<RateLimitState> {
    try {
      const [row] = await withDeadline(
        this.sql<{ count: number; window_start: number; now: number }[]>`
          WITH clock AS (
            SELECT extract(epoch FROM now())::bigint AS now,
                   (extract(epoch FROM now())::bigint / ${WINDOW_SECONDS}) * ${WINDOW_SECONDS} AS window_start
          )
          INSERT INTO gateway.rate_limit_windows (bucket, window_start, count)
          SELECT ${bucket}, window_start, 1 FROM clock
          ON CONFLICT (bucket, window_start) DO UPDATE SET count = gateway.rate_limit_windows.count + 1
          RETURNING count, window_start::int AS window_start, (SELECT now::int FROM clock) AS now`,
        HIT_DEADLINE_MS,
        'rate limit count',
      );
      this.sweepOccasionally(row!.window_start);
      return this.state(limit, row!.count, row!.window_start, row!.now);
    } catch (error) {
      this.log.warn(
        { err: error, bucket: bucket.split(':')[0] },
        'rate limit unavailable; letting the request through',
      );
      const now = Math.floor(Date.now() / 1000);
      return this.state(limit, 0, now - (now % WINDOW_SECONDS), now);
    }
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
