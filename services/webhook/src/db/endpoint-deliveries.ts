import type {
  EndpointDeliveryStatus,
  EndpointEventKind,
  PageExtent,
  PageQuery,
  Sql,
  TransactionSql,
} from '@voice/shared';
import { type BulkRange, type RedeliveredRow, redeliverFailedOf } from './bulk-redelivery';
import { ATTEMPTS, type DeliveryLogRow, pageOfDeliveries } from './deliveries';

type Db = Sql | TransactionSql;

/** An endpoint's delivery as its log shows it: no secret, no payload. */
export type EndpointDeliveryRow = Omit<DeliveryLogRow, 'agent_id' | 'session_id' | 'event' | 'status'> & {
  endpoint_id: string;
  event: EndpointEventKind;
  status: EndpointDeliveryStatus;
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
    const mine = db`endpoint_id = ${endpointId}`;
    return pageOfDeliveries<EndpointDeliveryRow>(db, mine, COLUMNS(db), 'webhook_endpoint_deliveries', query);
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

  /** The agents' bulk redelivery (redeliverFailedOf) over one endpoint's deliveries, to its current URL. */
  redeliverFailed(
    sql: Sql,
    endpointId: string,
    range: BulkRange,
    url: string,
  ): Promise<{ deliveries: RedeliveredRow[]; hasMore: boolean }> {
    return redeliverFailedOf(
      sql,
      {
        key: `endpoint/${endpointId}`,
        owns: (db, d) => db`${db(d)}.endpoint_id = ${endpointId}`,
        url,
        secret: null,
      },
      range,
    );
  },

  /**
   * Ends every delivery of the endpoint not yet final as `cancelled`, in the caller's transaction
   * (the one that disables it). One under way keeps its lease-free cancelled status: the worker
   * records its attempt but never retries it (deliveryRepository.recordAttempt), and the claim
   * never picks a cancelled delivery, so nothing is sent twice. Answers how many were cancelled.
   */
  async cancelQueued(tx: TransactionSql, endpointId: string): Promise<number> {
    const cancelled = await tx`
      UPDATE webhook.deliveries
         SET status = 'cancelled', next_attempt_at = null, lease_until = null, completed_at = now()
       WHERE endpoint_id = ${endpointId} AND status IN ('pending', 'delivering')`;
    return cancelled.count;
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
