import type { Sql, TransactionSql } from '@voice/shared';

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
  event_id: string;
  event: string;
  url: string;
  secret: string | null;
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
      returning id, event_id, event, url, secret, payload::text as body, attempt_count`;
    return [...rows];
  },

  /** Gives a claimed delivery back without an attempt (its host was busy), due again after `delayMs`. */
  async release(sql: Sql, id: string, delayMs: number): Promise<void> {
    await sql`
      update webhook.deliveries
         set lease_until = null, next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
       where id = ${id} and status = 'delivering'`;
  },

  /** Logs one attempt and moves the delivery on, in one transaction. */
  async recordAttempt(sql: Sql, id: string, attempt: AttemptRecord, update: DeliveryUpdate): Promise<void> {
    await sql.begin(async (tx) => {
      await tx`
        insert into webhook.delivery_attempts
          (delivery_id, attempt, started_at, duration_ms, status_code, error, succeeded)
        values (${id}, ${attempt.attempt}, ${attempt.startedAt}, ${attempt.durationMs},
                ${attempt.statusCode}, ${attempt.error}, ${attempt.succeeded})
        on conflict (delivery_id, attempt) do nothing`;
      if (update.status === 'pending') {
        await tx`
          update webhook.deliveries
             set status = 'pending', attempt_count = ${attempt.attempt}, lease_until = null,
                 next_attempt_at = now() + ${update.nextAttemptInMs} * interval '1 millisecond'
           where id = ${id}`;
      } else {
        await tx`
          update webhook.deliveries
             set status = ${update.status}, attempt_count = ${attempt.attempt}, lease_until = null,
                 next_attempt_at = null, completed_at = now()
           where id = ${id}`;
      }
    });
  },
};
