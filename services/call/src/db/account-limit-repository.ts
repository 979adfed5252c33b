import type { AccountLoad, Sql } from '@voice/shared';

/** call.account_limits, and an account's live calls counted through calls_account_live_idx. */
export const accountLimitRepository = {
  /**
   * Stores an account's limit unless a later change is stored already (`changedAt` is the
   * gateway's time of the change). True when stored (a repeat of the stored change counts).
   */
  async set(sql: Sql, accountId: string, limit: number, changedAt: Date): Promise<boolean> {
    const rows = await sql`
      INSERT INTO call.account_limits (account_id, max_concurrent_calls, updated_at)
      VALUES (${accountId}, ${limit}, ${changedAt})
      ON CONFLICT (account_id) DO UPDATE
        SET max_concurrent_calls = excluded.max_concurrent_calls, updated_at = excluded.updated_at
        WHERE call.account_limits.updated_at <= excluded.updated_at
      RETURNING account_id`;
    return rows.length > 0;
  },

  /** The account's limit (`fallback` without a row: `known` false) and its live calls now. */
  async load(sql: Sql, accountId: string, fallback: number): Promise<AccountLoad & { known: boolean }> {
    const [row] = await sql<(AccountLoad & { known: boolean })[]>`
      SELECT coalesce(l.max_concurrent_calls, ${fallback})::int AS max_concurrent_calls,
             l.account_id IS NOT NULL AS known, c.active_calls, c.waiting_calls
      FROM (SELECT count(*) FILTER (WHERE dialed_at IS NOT NULL)::int AS active_calls,
                   count(*) FILTER (WHERE dialed_at IS NULL)::int AS waiting_calls
            FROM call.calls
            -- Written as calls_account_live_idx's predicate, so that index serves it (migration 011).
            WHERE account_id = ${accountId}
              AND status NOT IN ('completed', 'no_answer', 'failed', 'voicemail', 'busy')) c
      LEFT JOIN call.account_limits l ON l.account_id = ${accountId}`;
    return row!;
  },
};
