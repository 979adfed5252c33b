import type { Sql, SqlFragment, TransactionSql } from '@voice/shared';

/** Which failed deliveries: created in [from, to), at most `limit` redelivered per request. */
export interface BulkRange {
  from: Date;
  to: Date;
  limit: number;
}

/** Whose deliveries a bulk redelivery covers, and where the new ones go. */
export interface BulkTarget {
  /** Serialises bulk requests for the same target (an agent's webhook, an endpoint). */
  key: string;
  /** The condition that a delivery aliased `d` is the target's. */
  owns: (db: TransactionSql, alias: string) => SqlFragment;
  url: string;
  /** The secret stored with the new deliveries; null for an endpoint (its secrets are read per attempt). */
  secret: string | null;
}

/**
 * A new delivery (as a single redelivery makes) for each event of the target that failed in the
 * range and is neither delivered nor queued again since: one per event however often it failed
 * (its newest failed delivery in the range is the original), oldest first, at most `limit`. Test
 * deliveries are left out; a cancelled delivery neither counts as failed nor as delivered. Answers
 * the new deliveries in that order and whether more are left.
 */
export async function redeliverFailedOf(
  sql: Sql,
  target: BulkTarget,
  range: BulkRange,
): Promise<{ deliveries: RedeliveredRow[]; hasMore: boolean }> {
  return sql.begin(async (tx) => {
    // One bulk redelivery per target at a time: the next sees this one's new deliveries (pending)
    // and skips their events, so concurrent or repeated requests never queue an event twice.
    await tx`SELECT pg_advisory_xact_lock(hashtext('webhook.redeliver_failed'), hashtext(${target.key}))`;
    const inRange = (alias: string) => tx`
      ${target.owns(tx, alias)}
      AND ${tx(alias)}.status = 'failed' AND NOT ${tx(alias)}.test
      AND ${tx(alias)}.created_at >= ${range.from} AND ${tx(alias)}.created_at < ${range.to}`;
    const picked = await tx<{ id: string }[]>`
      SELECT d.id FROM webhook.deliveries d
       WHERE ${inRange('d')}
         AND NOT EXISTS (
               SELECT 1 FROM webhook.deliveries o
                WHERE o.event_id = d.event_id AND ${target.owns(tx, 'o')}
                  AND o.status NOT IN ('failed', 'cancelled'))
         AND NOT EXISTS (
               SELECT 1 FROM webhook.deliveries n
                WHERE n.event_id = d.event_id AND ${inRange('n')}
                  AND (n.created_at, n.id) > (d.created_at, d.id))
       ORDER BY d.created_at, d.id
       LIMIT ${range.limit + 1}`;
    const chosen = picked.slice(0, range.limit).map((row) => row.id);
    if (chosen.length === 0) return { deliveries: [], hasMore: false };
    const inserted = await tx<RedeliveredRow[]>`
      INSERT INTO webhook.deliveries
        (id, account_id, agent_id, endpoint_id, event_id, event, session_id, url, secret, payload, status,
         attempt_count, next_attempt_at, redelivery_of, test)
      SELECT gen_random_uuid(), account_id, agent_id, endpoint_id, event_id, event, session_id, ${target.url},
             ${target.secret}, payload, 'pending', 0, now(), id, test
        FROM webhook.deliveries
       WHERE id = ANY(${chosen}::uuid[])
      RETURNING id, redelivery_of, event_id`;
    const order = new Map(chosen.map((id, index) => [id, index]));
    const deliveries = [...inserted].sort(
      (a, b) => (order.get(a.redelivery_of) ?? 0) - (order.get(b.redelivery_of) ?? 0),
    );
    return { deliveries, hasMore: picked.length > range.limit };
  });
}

export interface RedeliveredRow {
  id: string;
  redelivery_of: string;
  event_id: string;
}
