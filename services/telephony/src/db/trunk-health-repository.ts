import type { Sql, TrunkHealthSummary } from '@voice/shared';

/** A trunk due for its keep-alive, with what pinging it needs (the password is for digest only). */
export interface DueTrunk {
  id: string;
  uri: string;
  username: string | null;
  password: string | null;
}

/** The latest OPTIONS keep-alive result of a trunk. */
export interface TrunkHealthRow {
  trunk_id: string;
  account_id: string;
  ok: boolean;
  latency_ms: number | null;
  sip_code: number | null;
  last_error: string | null;
  checked_at: Date;
}

export const trunkHealthRepository = {
  /**
   * Claims up to `limit` trunks whose next check is due (or that were never checked) and sets their
   * next check `intervalMs` on: replicas running this at once each get different trunks.
   */
  async claimDue(sql: Sql, limit: number, intervalMs: number): Promise<DueTrunk[]> {
    return sql<DueTrunk[]>`
      WITH due AS (
        SELECT t.id FROM telephony.trunks t LEFT JOIN telephony.trunk_health h ON h.trunk_id = t.id
         WHERE h.trunk_id IS NULL OR h.next_check_at <= now()
         ORDER BY h.next_check_at NULLS FIRST LIMIT ${limit}
         FOR UPDATE OF t SKIP LOCKED),
      claimed AS (
        INSERT INTO telephony.trunk_health (trunk_id, next_check_at)
        SELECT id, now() + make_interval(secs => ${intervalMs / 1000}) FROM due
        ON CONFLICT (trunk_id) DO UPDATE SET next_check_at = excluded.next_check_at
        RETURNING trunk_id)
      SELECT t.id, t.uri, t.username, t.password FROM telephony.trunks t JOIN claimed c ON c.trunk_id = t.id`;
  },

  async record(
    sql: Sql,
    trunkId: string,
    result: { ok: boolean; latencyMs: number; sipCode: number | null; error: string | null },
  ): Promise<void> {
    await sql`
      UPDATE telephony.trunk_health
         SET ok = ${result.ok}, latency_ms = ${Math.round(result.latencyMs)}, sip_code = ${result.sipCode},
             last_error = ${result.error}, checked_at = now()
       WHERE trunk_id = ${trunkId}`;
  },

  /** Every account's trunks counted by their latest result (public health shows counts only). */
  async summary(sql: Sql): Promise<TrunkHealthSummary> {
    const [row] = await sql<TrunkHealthSummary[]>`
      SELECT count(*)::int AS total,
             count(*) FILTER (WHERE h.ok)::int AS reachable,
             count(*) FILTER (WHERE NOT h.ok)::int AS unreachable,
             count(*) FILTER (WHERE h.ok IS NULL)::int AS unknown
        FROM telephony.trunks t
        LEFT JOIN telephony.trunk_health h ON h.trunk_id = t.id AND h.checked_at IS NOT NULL`;
    return row!;
  },

  /** The latest results, of one account's trunks or of all. */
  async latest(sql: Sql, accountId?: string): Promise<TrunkHealthRow[]> {
    return sql<TrunkHealthRow[]>`
      SELECT h.trunk_id, t.account_id, h.ok, h.latency_ms, h.sip_code, h.last_error, h.checked_at
        FROM telephony.trunk_health h JOIN telephony.trunks t ON t.id = h.trunk_id
       WHERE h.checked_at IS NOT NULL ${accountId ? sql`AND t.account_id = ${accountId}` : sql``}
       ORDER BY t.account_id, h.trunk_id`;
  },
};
