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
import { ATTEMPTS, type DeliveryLogRow } from './deliveries';

type Db = Sql | TransactionSql;

/** An endpoint's delivery as its log shows it: no secret, no payload. */
export type EndpointDeliveryRow = Omit<DeliveryLogRow, 'agent_id' | 'session_id' | 'event'> & {
  endpoint_id: string;
  event: EndpointEventKind;
};

const COLUMNS = (db: Db) => db`
  d.id, d.endpoint_id, d.event_id, d.event, d.url, d.status, d.next_attempt_at,
  d.redelivery_of, d.test, d.created_at, d.completed_at`;

/** The delivery log of account endpoints; the caller checked the endpoint is the account's. */
export const endpointDeliveryRepository = {
  /** One page of an endpoint's deliveries, newest first: a keyset read on deliveries_endpoint_idx. */
  async page(
    db: Db,
    endpointId: string,
    query: PageQuery,
  ): Promise<{ rows: EndpointDeliveryRow[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'webhook_endpoint_deliveries');
    const mine = db`endpoint_id = ${endpointId}`;
    const read = db<(EndpointDeliveryRow & { sort_at: string })[]>`
      SELECT ${COLUMNS(db)}, ${ATTEMPTS(db)}, d.sort_at
        FROM (SELECT ${COLUMNS(db)}, d.created_at::text AS sort_at FROM webhook.deliveries d
               WHERE ${mine}
                 ${start.after ? db`AND (created_at, id) < (${cursorTime(db, start.after[0])}, ${start.after[1]}::uuid)` : db``}
               ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}) d
       ORDER BY d.created_at DESC, d.id DESC`;
    const rows = await pageRows(start, read);
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const extent = await pageExtent(db, db`webhook.deliveries WHERE ${mine}`, start, page);
    return { rows: page.rows, extent };
  },

  async find(db: Db, endpointId: string, id: string): Promise<EndpointDeliveryRow | undefined> {
    const [row] = await db<EndpointDeliveryRow[]>`
      SELECT ${COLUMNS(db)}, ${ATTEMPTS(db)} FROM webhook.deliveries d
       WHERE d.endpoint_id = ${endpointId} AND d.id = ${id}`;
    return row;
  },

  /**
   * A new delivery of one of the endpoint's deliveries: the same event id and byte-identical body,
   * to the endpoint's current URL (signed with its current secrets at each attempt). False when
   * the original is not this endpoint's.
   */
  async redeliver(db: Db, endpointId: string, originalId: string, id: string, url: string): Promise<boolean> {
    const inserted = await db`
      INSERT INTO webhook.deliveries
        (id, account_id, endpoint_id, event_id, event, url, secret, payload, status,
         attempt_count, next_attempt_at, redelivery_of, test)
      SELECT ${id}, account_id, endpoint_id, event_id, event, ${url}, null, payload, 'pending', 0, now(), id, test
        FROM webhook.deliveries
       WHERE id = ${originalId} AND endpoint_id = ${endpointId}`;
    return inserted.count === 1;
  },

  async insertTest(
    db: Db,
    d: {
      id: string;
      accountId: string;
      endpointId: string;
      eventId: string;
      kind: EndpointEventKind;
      url: string;
      body: unknown;
    },
  ): Promise<void> {
    await db`
      INSERT INTO webhook.deliveries
        (id, account_id, endpoint_id, event_id, event, url, secret, payload, status, attempt_count, next_attempt_at, test)
      VALUES (${d.id}, ${d.accountId}, ${d.endpointId}, ${d.eventId}, ${d.kind}, ${d.url}, null,
              ${db.json(d.body as never)}, 'pending', 0, now(), true)`;
  },
};
