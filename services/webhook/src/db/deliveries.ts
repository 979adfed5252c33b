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
import { type BulkRange, type RedeliveredRow, redeliverFailedOf } from './bulk-redelivery';
import { accountEndpointState, agentWebhookState } from './failing-endpoints';

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

/** What recording an attempt left: the delivery's status, and its endpoint's state when that moved. */
export interface AttemptRecorded {
  /** cancelled: its endpoint was disabled during the attempt (no retry follows). */
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  endpoint: EndpointState | undefined;
}

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
   * the target's failing row (failing_endpoints for an agent's webhook, failing_account_endpoints
   * for an account endpoint: a failure adds to it, a success removes it) and answers that
   * endpoint's state (none while retrying, or for a success with no failures before); undefined
   * when the delivery is gone (its endpoint was deleted during the attempt).
   * A delivery cancelled during the attempt (its endpoint was disabled) keeps the attempt in its
   * log and is never retried: it stays cancelled unless this attempt succeeded.
   */
  async recordAttempt(
    sql: Sql,
    delivery: { id: string; endpoint_id: string | null },
    attempt: AttemptRecord,
    update: DeliveryUpdate,
  ): Promise<AttemptRecorded | undefined> {
    const { id } = delivery;
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
        const [row] = await tx<{ status: 'pending' | 'cancelled' }[]>`
          update webhook.deliveries
             set attempt_count = ${attempt.attempt}, lease_until = null,
                 status = case when status = 'cancelled' then status else 'pending' end,
                 next_attempt_at = case when status = 'cancelled' then null
                   else now() + ${update.nextAttemptInMs} * interval '1 millisecond' end
           where id = ${id}
          returning status`;
        return row ? { status: row.status, endpoint: undefined } : undefined;
      }
      // The endpoint's row changes in the same statement as the delivery: no extra round trip.
      const done = tx`
        update webhook.deliveries
           set status = case when status = 'cancelled' and ${update.status} = 'failed' then status
                             else ${update.status} end,
               attempt_count = ${attempt.attempt}, lease_until = null, next_attempt_at = null,
               completed_at = now()
         where id = ${id}
        returning account_id, agent_id, endpoint_id, created_at, status`;
      const finished = delivery.endpoint_id
        ? await accountEndpointState(tx, done, update.status)
        : await agentWebhookState(tx, done, update.status);
      if (!finished) return undefined;
      const { status, failing } = finished;
      const state = status === 'succeeded' ? 'recovered' : 'failing';
      return { status, endpoint: failing && { state, ...failing } };
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

  /** Bulk redelivery of the agent's failed events (see redeliverFailedOf). */
  redeliverFailed(
    sql: Sql,
    accountId: string,
    agentId: string,
    range: BulkRange,
    target: { url: string; secret: string | null },
  ): Promise<{ deliveries: RedeliveredRow[]; hasMore: boolean }> {
    return redeliverFailedOf(
      sql,
      {
        key: `${accountId}/${agentId}`,
        owns: (db, d) => db`${db(d)}.account_id = ${accountId} AND ${db(d)}.agent_id = ${agentId}`,
        ...target,
      },
      range,
    );
  },
};
