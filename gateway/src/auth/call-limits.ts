import { randomUUID } from 'node:crypto';
import { CALL, type Logger, type Plan, type Sql } from '@voice/shared';
import type { GatewayClient } from '../clients/gateway-client';
import { effectiveCallLimit } from './account-store';

/** How often accounts whose limit the call service has not confirmed are looked for. */
const SYNC_EVERY_MS = 30_000;
/** After a failed push, the next try comes sooner: this, doubling up to RETRY_MAX_MS. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 5_000;
/** A push the call service does not answer in this long is tried again later. */
const PUSH_TIMEOUT_MS = 5_000;
/** Accounts pushed per look (the rest on the next). */
const BATCH = 100;

interface LimitRow {
  plan: Plan;
  max_concurrent_calls: number | null;
  /**
   * As PostgreSQL prints it, compared as text: a JS Date, or a parameter postgres.js sends as a
   * timestamp (through a Date), would drop the microseconds and never match.
   */
  changed_text: string;
  changed_at: Date;
}

/**
 * Carries accounts' concurrent-call limits to the call service, which enforces them: after every
 * change (create, PATCH), at start, and until each change is confirmed (a call service that was
 * down or not yet started gets them once it answers). A push is idempotent and ordered by the
 * change's time, so repeats and late arrivals change nothing.
 */
export class CallLimitSync {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private retryMs = RETRY_FIRST_MS;
  private running = false;

  constructor(
    private readonly sql: Sql,
    private readonly client: GatewayClient,
    private readonly log: Logger,
  ) {}

  /** Pushes the account's limit now; true once the call service stored it. Never throws. */
  async push(accountId: string): Promise<boolean> {
    try {
      const [row] = await this.sql<LimitRow[]>`
        SELECT plan, max_concurrent_calls, call_limit_changed_at::text AS changed_text,
               call_limit_changed_at AS changed_at
        FROM gateway.accounts WHERE id = ${accountId}`;
      if (!row) return false;
      await this.client.call(
        CALL.setAccountLimit,
        {
          account_id: accountId,
          max_concurrent_calls: effectiveCallLimit(row.plan, row.max_concurrent_calls),
          changed_at: row.changed_at.toISOString(),
        },
        { requestId: randomUUID() },
        { timeoutMs: PUSH_TIMEOUT_MS },
      );
      // Only the change that was pushed: one made meanwhile stays to be pushed.
      await this.sql`
        UPDATE gateway.accounts SET call_limit_synced = true
        WHERE id = ${accountId} AND call_limit_changed_at::text = ${row.changed_text}`;
      return true;
    } catch (error) {
      this.log.warn(
        { err: error, account_id: accountId },
        'could not give the call service this account’s concurrent-call limit; retrying',
      );
      this.soon();
      return false;
    }
  }

  /** Pushes unconfirmed limits now and every SYNC_EVERY_MS until stopped. */
  start(): void {
    this.running = true;
    this.next(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.pass;
  }

  private next(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.pass = this.pass.then(() => this.syncPending());
    }, delayMs);
  }

  /** After a failure: the next look in retryMs (doubling up to RETRY_MAX_MS). */
  private soon(): void {
    this.next(this.retryMs);
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
  }

  private async syncPending(): Promise<void> {
    try {
      for (;;) {
        const rows = await this.sql<{ id: string }[]>`
          SELECT id FROM gateway.accounts WHERE NOT call_limit_synced
          ORDER BY call_limit_changed_at LIMIT ${BATCH}`;
        for (const { id } of rows) {
          if (!this.running || !(await this.push(id))) return;
        }
        if (rows.length < BATCH) break;
      }
      this.retryMs = RETRY_FIRST_MS;
      this.next(SYNC_EVERY_MS);
    } catch (error) {
      this.log.warn(
        { err: error },
        'could not look for accounts whose concurrent-call limit is not delivered',
      );
      this.soon();
    }
  }
}
