import { randomUUID } from 'node:crypto';
import {
  AGENT,
  AppError,
  type BulkRedelivery,
  type Bus,
  type CallContext,
  callRpc,
  type PageOf,
  type PageQuery,
  requireAccount,
  type Sql,
  toPage,
  type WebhookDelivery,
} from '@voice/shared';
import { type DeliveryLogRow, deliveryLogRepository, deliveryRepository } from '../db/deliveries';
import { bulkRange } from '../domain/bulk-range';
import type { PayloadLinks } from '../domain/payload';
import { sampleCallEndedPayload } from '../domain/sample-call';

export interface DeliveryLogOptions {
  bus: Bus;
  sql: Sql;
  links: () => PayloadLinks;
  /** Called after a delivery was stored, so the worker sends it without waiting for its poll. */
  onStored: () => void;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

function toDelivery(row: DeliveryLogRow): WebhookDelivery {
  return {
    id: row.id,
    agent_id: row.agent_id,
    event_id: row.event_id,
    event: 'CALL_ENDED',
    session_id: row.session_id,
    url: row.url,
    status: row.status,
    attempts: row.attempts.map((a) => ({ ...a, started_at: new Date(a.started_at).toISOString() })),
    next_attempt_at: iso(row.next_attempt_at),
    redelivery_of: row.redelivery_of,
    test: row.test,
    created_at: new Date(row.created_at).toISOString(),
    completed_at: iso(row.completed_at),
  };
}

/**
 * What an account sees of its agents' webhooks: the delivery log, redelivery and the test event.
 * The agent is looked up in the caller's account first, so another account's agent is a 404 and
 * its deliveries are never reached.
 */
export class DeliveryLog {
  constructor(private readonly options: DeliveryLogOptions) {}

  async list(ctx: CallContext, agentId: string, page: PageQuery): Promise<PageOf<WebhookDelivery>> {
    await this.target(ctx, agentId);
    const { rows, extent } = await deliveryLogRepository.page(
      this.options.sql,
      requireAccount(ctx),
      agentId,
      page,
    );
    return toPage(rows.map(toDelivery), extent, page);
  }

  /** A new delivery of the same event (same event id, same payload) to the agent's current webhook. */
  async redeliver(ctx: CallContext, agentId: string, deliveryId: string): Promise<WebhookDelivery> {
    const target = await this.configuredTarget(ctx, agentId);
    const accountId = requireAccount(ctx);
    const id = randomUUID();
    const created = await deliveryLogRepository.redeliver(this.options.sql, accountId, agentId, deliveryId, {
      id,
      url: target.url,
      secret: target.secret,
    });
    if (!created) throw new AppError('DELIVERY_NOT_FOUND');
    return this.stored(accountId, agentId, id);
  }

  /**
   * Redeliver, for every event of the agent whose delivery failed in [from, to) and that is not
   * delivered or queued again since: at most `limit` per request (has_more: ask again).
   */
  async redeliverFailed(
    ctx: CallContext,
    agentId: string,
    range: { from: string; to: string; limit: number },
  ): Promise<BulkRedelivery> {
    const target = await this.configuredTarget(ctx, agentId);
    const { deliveries, hasMore } = await deliveryLogRepository.redeliverFailed(
      this.options.sql,
      requireAccount(ctx),
      agentId,
      bulkRange(range),
      { url: target.url, secret: target.secret },
    );
    if (deliveries.length > 0) this.options.onStored();
    return { queued: deliveries.length, has_more: hasMore, deliveries };
  }

  /** A sample CALL_ENDED for this agent, marked as a test, sent like any other delivery. */
  async sendTest(ctx: CallContext, agentId: string): Promise<WebhookDelivery> {
    const target = await this.configuredTarget(ctx, agentId);
    const agent = await callRpc(this.options.bus, AGENT.snapshot, { agent_id: agentId }, ctx);
    const accountId = requireAccount(ctx);
    const id = randomUUID();
    const sessionId = randomUUID();
    await deliveryRepository.insert(this.options.sql, {
      id,
      account_id: accountId,
      agent_id: agentId,
      event_id: randomUUID(),
      event: 'CALL_ENDED',
      session_id: sessionId,
      url: target.url,
      secret: target.secret,
      payload: sampleCallEndedPayload(agent, { callId: randomUUID(), sessionId }, this.options.links()),
      test: true,
    });
    return this.stored(accountId, agentId, id);
  }

  private target(ctx: CallContext, agentId: string) {
    return callRpc(this.options.bus, AGENT.webhookTarget, { agent_id: agentId }, ctx);
  }

  /** Redelivery and tests go to the webhook as configured now; with none there is nowhere to send. */
  private async configuredTarget(ctx: CallContext, agentId: string) {
    const target = await this.target(ctx, agentId);
    if (!target)
      throw new AppError('INVALID_STATE', 'The agent has no webhook_config: there is nowhere to send');
    return target;
  }

  private async stored(accountId: string, agentId: string, id: string): Promise<WebhookDelivery> {
    this.options.onStored();
    const row = await deliveryLogRepository.find(this.options.sql, accountId, agentId, id);
    if (!row) throw new Error(`webhook delivery ${id} vanished after it was stored`);
    return toDelivery(row);
  }
}
