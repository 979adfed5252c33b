import {
  cursorTime,
  type EndpointEventKind,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageRows,
  pageStart,
  type Sql,
  type TransactionSql,
} from '@voice/shared';

type Db = Sql | TransactionSql;

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: EndpointEventKind[];
  description: string | null;
  enabled: boolean;
  secret_rotated_at: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface EndpointChanges {
  url?: string;
  events?: EndpointEventKind[];
  enabled?: boolean;
  description?: string | null;
}

/** Every column but the secrets, which no read returns. */
const COLUMNS = (db: Db) => db`
  id, account_id, url, events, description, enabled, secret_rotated_at,
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS previous_secret_expires_at,
  created_at, updated_at`;

/** The webhook schema's endpoints: every statement is scoped by account (another's is not found). */
export const endpointRepository = {
  async insert(
    db: Db,
    row: {
      id: string;
      account_id: string;
      url: string;
      events: string[];
      description: string | null;
      secret: string;
    },
  ): Promise<EndpointRow> {
    const [stored] = await db<EndpointRow[]>`
      INSERT INTO webhook.endpoints (id, account_id, url, events, description, secret)
      VALUES (${row.id}, ${row.account_id}, ${row.url}, ${row.events}, ${row.description}, ${row.secret})
      RETURNING ${COLUMNS(db)}`;
    return stored!;
  },

  async find(db: Db, accountId: string, id: string): Promise<EndpointRow | undefined> {
    const [row] = await db<EndpointRow[]>`
      SELECT ${COLUMNS(db)} FROM webhook.endpoints WHERE account_id = ${accountId} AND id = ${id}`;
    return row;
  },

  async update(
    db: Db,
    accountId: string,
    id: string,
    changes: EndpointChanges,
  ): Promise<EndpointRow | undefined> {
    const values: Record<string, unknown> = { ...changes, updated_at: new Date() };
    const [row] = await db<EndpointRow[]>`
      UPDATE webhook.endpoints SET ${db(values as never)}
       WHERE account_id = ${accountId} AND id = ${id}
      RETURNING ${COLUMNS(db)}`;
    return row;
  },

  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    const deleted = await db`DELETE FROM webhook.endpoints WHERE account_id = ${accountId} AND id = ${id}`;
    return deleted.count === 1;
  },

  /**
   * A new secret; the current one becomes the previous, signing beside the new one for
   * `overlapHours`. A rotation within an overlap drops the oldest: two secrets at most.
   */
  async rotate(
    db: Db,
    accountId: string,
    id: string,
    secret: string,
    overlapHours: number,
  ): Promise<EndpointRow | undefined> {
    const [row] = await db<EndpointRow[]>`
      UPDATE webhook.endpoints
         SET previous_secret = secret, secret = ${secret}, secret_rotated_at = now(), updated_at = now(),
             previous_secret_expires_at = now() + ${overlapHours} * interval '1 hour'
       WHERE account_id = ${accountId} AND id = ${id}
      RETURNING ${COLUMNS(db)}`;
    return row;
  },

  /** One page of the account's endpoints, newest first (ties by id): a keyset read on endpoints_account_idx. */
  async page(
    db: Db,
    accountId: string,
    query: PageQuery,
  ): Promise<{ rows: EndpointRow[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'webhook_endpoints');
    const mine = db`account_id = ${accountId}`;
    const read = db<(EndpointRow & { sort_at: string })[]>`
      SELECT ${COLUMNS(db)}, created_at::text AS sort_at FROM webhook.endpoints
       WHERE ${mine}
         ${start.after ? db`AND (created_at, id) < (${cursorTime(db, start.after[0])}, ${start.after[1]}::uuid)` : db``}
       ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}`;
    const rows = await pageRows(start, read);
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const extent = await pageExtent(db, db`webhook.endpoints WHERE ${mine}`, start, page);
    return { rows: page.rows, extent };
  },

  /**
   * One delivery of an event to each of the account's enabled endpoints subscribed to it, in the
   * caller's transaction (the consumer's processOnce): the body is the same for all of them.
   * FOR SHARE orders it with a concurrent disable: either the disable waits and then cancels
   * this delivery, or this waits for the disable and then sees the endpoint disabled.
   */
  async fanOut(
    tx: TransactionSql,
    event: { accountId: string; eventId: string; kind: EndpointEventKind; body: unknown },
  ): Promise<number> {
    const inserted = await tx`
      INSERT INTO webhook.deliveries
        (id, account_id, endpoint_id, event_id, event, url, secret, payload, status, attempt_count, next_attempt_at)
      SELECT gen_random_uuid(), account_id, id, ${event.eventId}, ${event.kind}, url, null,
             ${tx.json(event.body as never)}, 'pending', 0, now()
        FROM webhook.endpoints
       WHERE account_id = ${event.accountId} AND enabled AND ${event.kind} = ANY(events)
         FOR SHARE`;
    return inserted.count;
  },

  /**
   * Of the (account, event kind) pairs asked, those whose account has an enabled endpoint
   * subscribed to the kind (most events concern none), each as its index in `pairs`.
   */
  async subscribed(
    db: Db,
    pairs: readonly { accountId: string; kind: EndpointEventKind }[],
  ): Promise<Set<number>> {
    const rows = await db<{ n: number }[]>`
      SELECT (w.n - 1)::int AS n
        FROM unnest(${pairs.map((p) => p.accountId)}::text[], ${pairs.map((p) => p.kind)}::text[])
             WITH ORDINALITY AS w(account_id, kind, n)
       WHERE EXISTS (SELECT 1 FROM webhook.endpoints e
                      WHERE e.account_id = w.account_id AND e.enabled AND w.kind = ANY(e.events))`;
    return new Set(rows.map((row) => row.n));
  },
};
