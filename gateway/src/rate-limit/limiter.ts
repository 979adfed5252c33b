import type { Sql } from '@voice/shared';

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

/**
 * Fixed one-minute windows counted in Postgres, so every gateway instance (and every transport:
 * REST, GraphQL, tRPC) draws on the same budget. One upsert per request.
 */
export class RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(bucket: string, limit: number): Promise<RateLimitState> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
    const [row] = await this.sql<{ count: number }[]>`
      INSERT INTO gateway.rate_limit_windows (bucket, window_start, count)
      VALUES (${bucket}, ${windowStart}, 1)
      ON CONFLICT (bucket, window_start) DO UPDATE SET count = gateway.rate_limit_windows.count + 1
      RETURNING count`;
    this.sweepOccasionally(windowStart);
    const count = row?.count ?? 1;
    const resetAt = windowStart + WINDOW_SECONDS;
    return {
      limit,
      remaining: Math.max(0, limit - count),
      resetAt,
      exceeded: count > limit,
      retryAfter: Math.max(1, resetAt - nowSeconds),
    };
  }

  /** Old windows are useless; drop them about once a minute per instance, off the request path. */
  private sweepOccasionally(windowStart: number): void {
    if (windowStart <= this.lastSweep) return;
    this.lastSweep = windowStart;
    this
      .sql`DELETE FROM gateway.rate_limit_windows WHERE window_start < ${windowStart - WINDOW_SECONDS}`.catch(
      () => {},
    );
  }
}
