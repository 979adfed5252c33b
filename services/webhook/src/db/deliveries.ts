import {
  cursorTime,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageRows,
  pageStart,
  type Sql,
  type SqlFragment,
  type TransactionSql,
} from '@voice/shared';

export interface NewDelivery {
  id: string;
  account_id: string;
  agent_id: string;
  event_id: string;
  event: string;
  session_id: string;
  url: string;
  secret: string | null;
  payload: unknown;
  test?: boolean;
  redelivery_of?: string | null;
}

export interface ClaimedDelivery {
  id: string;
  account_id: string;
  /** The agent whose webhook it goes to; null for an account endpoint's delivery. */
  agent_id: string | null;
  endpoint_id: string | null;
  event_id: string;
  event: string;
  url: string;
  /**
   * The secrets that sign it, newest first: an agent's delivery keeps the one it was stored with
   * (none: unsigned); an endpoint's are read at each attempt, so a rotation applies to retries too,
   * and the secret it replaced is among them while its overlap lasts.
   */
  secrets: string[];
  /** The exact body, as stored (jsonb text form re-serialised once, then sent byte-identical). */
  body: string;
  attempt_count: number;
}

export interface AttemptRecord {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
}

export type DeliveryUpdate =
  | { status: 'succeeded' | 'failed' }
  | { status: 'pending'; nextAttemptInMs: number };

/** The agent's endpoint after a delivery finished, when it is failing or just stopped failing. */
export interface EndpointState {
  /** failing: this delivery failed too; recovered: it succeeded after failures. */
  state: 'failing' | 'recovered';
  /** Deliveries that failed in a row (before this success, when recovered). */
  failed_deliveries: number;
  /** Creation time of the first of them. */
  failing_since: Date;
}

export const deliveryRepository = {
  async insert(tx: TransactionSql | Sql, d: NewDelivery): Promise<void> {
    await tx`
      insert into webhook.deliveries
        (id, account_id, agent_id, event_id, event, session_id, url, secret, payload, status,
         attempt_count, next_attempt_at, redelivery_of, test)
      values
        (${d.id}, ${d.account_id}, ${d.agent_id}, ${d.event_id}, ${d.event}, ${d.session_id}, ${d.url},
         ${d.secret}, ${tx.json(d.payload as never)}, 'pending', 0, now(), ${d.redelivery_of ?? null},
         ${d.test ?? false})`;
  },

  /** Leases up to `limit` due deliveries for `leaseMs`; a crashed worker's lease simply expires. */
  async claimDue(sql: Sql, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    const rows = await sql<ClaimedDelivery[]>`
      update webhook.deliveries
         set status = 'delivering', lease_until = now() + ${leaseMs} * interval '1 millisecond'
       where id in (
         select id from webhook.deliveries
          where status in ('pending', 'delivering')
            and next_attempt_at <= now()
            and (lease_until is null or lease_until < now())
          order by next_attempt_at
          limit ${limit}
          for update skip locked)
      returning id, account_id, agent_id, endpoint_id, event_id, event, url, payload::text as body, attempt_count,
        case when endpoint_id is null then array_remove(array[secret], null)
             else coalesce((select array_remove(array[e.secret,
                                     case when e.previous_secret_expires_at > now() then e.previous_secret end], null)
                              from webhook.endpoints e where e.id = endpoint_id), '{}')
        end as secrets`;
    return [...rows];
  },

  /** Gives a claimed delivery back without an attempt (its host was busy), due again after `delayMs`. */
  async release(sql: Sql, id: string, delayMs: number): Promise<void> {
    await sql`
      update webhook.deliveries
         set lease_until = null, next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
       where id = ${id} and status = 'delivering'`;
  },

  /**
   * Logs one attempt and moves the delivery on, in one transaction. A final outcome also updates
   * its agent's row in failing_endpoints (a failure adds to it, a success removes it) and answers
   * that endpoint's state; undefined while retrying, or for a success with no failures before.
   */
  async recordAttempt(
    sql: Sql,
    id: string,
    attempt: AttemptRecord,
    update: DeliveryUpdate,
  ): Promise<EndpointState | undefined> {
    return sql.begin(async (tx) => {
      // A delivery whose endpoint was deleted during the attempt is gone: nothing to record.
      await tx`
        insert into webhook.delivery_attempts
          (delivery_id, attempt, started_at, duration_ms, status_code, error, succeeded)
        select ${id}, ${attempt.attempt}, ${attempt.startedAt}, ${attempt.durationMs},
               ${attempt.statusCode}, ${attempt.error}, ${attempt.succeeded}
         where exists (select 1 from webhook.deliveries where id = ${id} for key share)
        on conflict (delivery_id, attempt) do nothing`;
      if (update.status === 'pending') {
        await tx`
          update webhook.deliveries
             set status = 'pending', attempt_count = ${attempt.attempt}, lease_until = null,
                 next_attempt_at = now() + ${update.nextAttemptInMs} * interval '1 millisecond'
           where id = ${id}`;
        return undefined;
      }
      // The endpoint's row changes in the same statement as the delivery: no extra round trip.
      const done = tx`
        update webhook.deliveries
           set status = ${update.status}, attempt_count = ${attempt.attempt}, lease_until = null,
               next_attempt_at = null, completed_at = now()
         where id = ${id}
        returning account_id, agent_id, created_at`;
      const [row] =
        update.status === 'succeeded'
          ? await tx<Omit<EndpointState, 'state'>[]>`
              with done as (${done})
              delete from webhook.failing_endpoints f using done
               where f.account_id = done.account_id and f.agent_id = done.agent_id
              returning f.failed_deliveries, f.failing_since`
          : await tx<Omit<EndpointState, 'state'>[]>`
              with done as (${done})
              insert into webhook.failing_endpoints as f
                (account_id, agent_id, failed_deliveries, failing_since, last_failed_at)
              select account_id, agent_id, 1, created_at, now() from done where agent_id is not null
              on conflict (account_id, agent_id) do update
                set failed_deliveries = f.failed_deliveries + 1, last_failed_at = now(),
                    failing_since = least(f.failing_since, excluded.failing_since)
              returning f.failed_deliveries, f.failing_since`;
      if (!row) return undefined;
      return { state: update.status === 'succeeded' ? 'recovered' : 'failing', ...row };
    });
  },
};

/** A delivery as the log shows it: no secret, no payload (the call record is served by the call API). */
export interface DeliveryLogRow {
  id: string;
  agent_id: string;
  event_id: string;
  event: string;
  session_id: string;
  url: string;
  status: 'pending' | 'delivering' | 'succeeded' | 'failed';
  next_attempt_at: Date | null;
  redelivery_of: string | null;
  test: boolean;
  created_at: Date;
  completed_at: Date | null;
  attempts: {
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    succeeded: boolean;
  }[];
}

type Db = Sql | TransactionSql;

/** The columns of a delivery `d` that the log shows: no secret, no payload. */
const LOG_COLUMNS = (db: Db) => db`
  d.id, d.agent_id, d.event_id, d.event, d.session_id, d.url, d.status, d.next_attempt_at,
  d.redelivery_of, d.test, d.created_at, d.completed_at`;

/** Each delivery `d`'s attempts in order, as one JSON array. */
export const ATTEMPTS = (db: Db) => db`
  coalesce((
    SELECT json_agg(json_build_object(
             'attempt', a.attempt, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
             'status_code', a.status_code, 'error', a.error, 'succeeded', a.succeeded)
           ORDER BY a.attempt)
      FROM webhook.delivery_attempts a WHERE a.delivery_id = d.id), '[]'::json) AS attempts`;

/**
 * One page of the deliveries `mine` selects, newest first (ties by id): a keyset read, the attempts
 * gathered for the page's rows only (not for rows an offset skips). Both delivery logs, an agent's
 * and an account endpoint's, read this way; `listName` keeps their cursors apart.
 */
export async function pageOfDeliveries<R extends { id: string }>(
  db: Db,
  mine: SqlFragment,
  columns: SqlFragment,
  listName: string,
  query: PageQuery,
): Promise<{ rows: R[]; extent: PageExtent }> {
  const start = pageStart(query, ['timestamp', 'uuid'], listName);
  const read = db<(R & { sort_at: string })[]>`
    SELECT ${columns}, ${ATTEMPTS(db)}, d.sort_at
      FROM (SELECT ${columns}, d.created_at::text AS sort_at FROM webhook.deliveries d
             WHERE ${mine}
               ${start.after ? db`AND (created_at, id) < (${cursorTime(db, start.after[0])}, ${start.after[1]}::uuid)` : db``}
             ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}) d
     ORDER BY d.created_at DESC, d.id DESC`;
  const rows = await pageRows(start, read);
  const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
  const extent = await pageExtent(db, db`webhook.deliveries WHERE ${mine}`, start, page);
  return { rows: page.rows, extent };
}

export const deliveryLogRepository = {
  /**
   * One page of an agent's deliveries, newest first (ties by id): a keyset read on
   * deliveries_agent_idx, the attempts gathered for the page's rows only (not for rows an
   * offset skips).
   */
  async page(
    db: Db,
    accountId: string,
    agentId: string,
    query: PageQuery,
  ): Promise<{ rows: DeliveryLogRow[]; extent: PageExtent }> {
    const mine = db`account_id = ${accountId} AND agent_id = ${agentId}`;
    return pageOfDeliveries<DeliveryLogRow>(db, mine, LOG_COLUMNS(db), 'webhook_deliveries', query);
  },

  async find(db: Db, accountId: string, agentId: string, id: string): Promise<DeliveryLogRow | undefined> {
    const [row] = await db<DeliveryLogRow[]>`
      SELECT ${LOG_COLUMNS(db)}, ${ATTEMPTS(db)} FROM webhook.deliveries d
       WHERE d.account_id = ${accountId} AND d.agent_id = ${agentId} AND d.id = ${id}`;
    return row;
  },

  /**
   * A new delivery of an existing one's event: the same event id and byte-identical payload, sent to
   * the agent's current address with its current secret. Undefined when the original is not this
   * account's and agent's.
   */
  async redeliver(
    db: Db,
    accountId: string,
    agentId: string,
    originalId: string,
    target: { id: string; url: string; secret: string | null },
  ): Promise<boolean> {
    const inserted = await db`
      INSERT INTO webhook.deliveries
        (id, account_id, agent_id, event_id, event, session_id, url, secret, payload, status,
         attempt_count, next_attempt_at, redelivery_of, test)
      SELECT ${target.id}, account_id, agent_id, event_id, event, session_id, ${target.url}, ${target.secret},
             payload, 'pending', 0, now(), id, test
        FROM webhook.deliveries
       WHERE id = ${originalId} AND account_id = ${accountId} AND agent_id = ${agentId}`;
    return inserted.count === 1;
  },

  /**
   * A new delivery (as `redeliver` makes) for each event of the agent that failed in the range
   * and is neither delivered nor queued again since: one per event however often it failed (its
   * newest failed delivery in the range is the original), oldest first, at most `limit`. Test
   * deliveries are left out. Answers the new deliveries in that order and whether more are left.
   */
  async redeliverFailed(
    sql: Sql,
    accountId: string,
    agentId: string,
    range: { from: Date; to: Date; limit: number },
    target: { url: string; secret: string | null },
  ): Promise<{ deliveries: RedeliveredRow[]; hasMore: boolean }> {
    return sql.begin(async (tx) => {
      // One bulk redelivery per agent at a time: the next sees this one's new deliveries (pending)
      // and skips their events, so concurrent or repeated requests never queue an event twice.
      await tx`SELECT pg_advisory_xact_lock(hashtext('webhook.redeliver_failed'), hashtext(${`${accountId}/${agentId}`}))`;
      const inRange = (alias: string) => tx`
        ${tx(alias)}.account_id = ${accountId} AND ${tx(alias)}.agent_id = ${agentId}
        AND ${tx(alias)}.status = 'failed' AND NOT ${tx(alias)}.test
        AND ${tx(alias)}.created_at >= ${range.from} AND ${tx(alias)}.created_at < ${range.to}`;
      const picked = await tx<{ id: string }[]>`
        SELECT d.id FROM webhook.deliveries d
         WHERE ${inRange('d')}
           AND NOT EXISTS (
                 SELECT 1 FROM webhook.deliveries o
                  WHERE o.event_id = d.event_id AND o.account_id = d.account_id
                    AND o.agent_id = d.agent_id AND o.status <> 'failed')
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
          (id, account_id, agent_id, event_id, event, session_id, url, secret, payload, status,
           attempt_count, next_attempt_at, redelivery_of, test)
        SELECT gen_random_uuid(), account_id, agent_id, event_id, event, session_id, ${target.url},
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
  },
};

export interface RedeliveredRow {
  id: string;
  redelivery_of: string;
  event_id: string;
}
