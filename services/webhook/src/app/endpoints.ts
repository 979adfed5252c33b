import { randomBytes, randomUUID } from 'node:crypto';
import {
  AppError,
  type BulkRedelivery,
  type CallContext,
  type CreateWebhookEndpointBody,
  checkWebhookUrl,
  type EndpointDelivery,
  type EndpointEventKind,
  type PageOf,
  type PageQuery,
  requireAccount,
  SECRET_OVERLAP_HOURS,
  type Sql,
  toPage,
  type UpdateWebhookEndpointBody,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@voice/shared';
import { type EndpointDeliveryRow, endpointDeliveryRepository } from '../db/endpoint-deliveries';
import { type EndpointRow, endpointRepository } from '../db/endpoints';
import { bulkRange } from '../domain/bulk-range';
import { endpointBody } from '../domain/endpoint-payload';
import type { PayloadLinks } from '../domain/payload';
import { sampleEndpointData } from '../domain/sample-events';

export interface EndpointsOptions {
  sql: Sql;
  /** WEBHOOK_ALLOW_PRIVATE: the same address rule as agents' webhooks. */
  allowPrivate: boolean;
  links: () => PayloadLinks;
  /** Called after a delivery was stored, so the worker sends it without waiting for its poll. */
  onStored: () => void;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    secret_rotated_at: iso(row.secret_rotated_at),
    previous_secret_expires_at: iso(row.previous_secret_expires_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function toDelivery(row: EndpointDeliveryRow): EndpointDelivery {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event: row.event,
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

/** A signing secret: 32 random bytes, prefixed so a leaked one is recognisable in a scan. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

const notFound = () => new AppError('WEBHOOK_ENDPOINT_NOT_FOUND');

/**
 * An account's webhook endpoints: the CRUD, secret rotation, and each endpoint's delivery log,
 * redelivery and test event. Every statement names the caller's account, so another account's
 * endpoint is a 404.
 */
export class Endpoints {
  constructor(private readonly options: EndpointsOptions) {}

  async create(ctx: CallContext, body: CreateWebhookEndpointBody): Promise<WebhookEndpointWithSecret> {
    const url = await this.checkUrl(body.url);
    const secret = newSecret();
    const row = await endpointRepository.insert(this.options.sql, {
      id: randomUUID(),
      account_id: requireAccount(ctx),
      url,
      events: [...new Set(body.events)],
      description: body.description || null,
      secret,
    });
    return { ...toEndpoint(row), secret };
  }

  async list(ctx: CallContext, page: PageQuery): Promise<PageOf<WebhookEndpoint>> {
    const { rows, extent } = await endpointRepository.page(this.options.sql, requireAccount(ctx), page);
    return toPage(rows.map(toEndpoint), extent, page);
  }

  async get(ctx: CallContext, id: string): Promise<WebhookEndpoint> {
    return toEndpoint(await this.find(ctx, id));
  }

  /**
   * Disabling (enabled: false) also cancels what is queued for the endpoint, in the same
   * transaction: those deliveries end `cancelled` and enabling it again does not send them.
   */
  async update(ctx: CallContext, id: string, changes: UpdateWebhookEndpointBody): Promise<WebhookEndpoint> {
    const url = changes.url === undefined ? undefined : await this.checkUrl(changes.url);
    const row = await this.options.sql.begin(async (tx) => {
      const updated = await endpointRepository.update(tx, requireAccount(ctx), id, {
        ...(url === undefined ? {} : { url }),
        ...(changes.events === undefined ? {} : { events: [...new Set(changes.events)] }),
        ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
        ...(changes.description === undefined ? {} : { description: changes.description || null }),
      });
      if (updated && changes.enabled === false) await endpointDeliveryRepository.cancelQueued(tx, id);
      return updated;
    });
    if (!row) throw notFound();
    return toEndpoint(row);
  }

  async delete(ctx: CallContext, id: string): Promise<{ deleted: true }> {
    if (!(await endpointRepository.delete(this.options.sql, requireAccount(ctx), id))) throw notFound();
    return { deleted: true };
  }

  /** A new secret, answered once; the one it replaces keeps signing beside it for SECRET_OVERLAP_HOURS. */
  async rotateSecret(ctx: CallContext, id: string): Promise<WebhookEndpointWithSecret> {
    const secret = newSecret();
    const row = await endpointRepository.rotate(
      this.options.sql,
      requireAccount(ctx),
      id,
      secret,
      SECRET_OVERLAP_HOURS,
    );
    if (!row) throw notFound();
    return { ...toEndpoint(row), secret };
  }

  async listDeliveries(ctx: CallContext, id: string, page: PageQuery): Promise<PageOf<EndpointDelivery>> {
    await this.find(ctx, id);
    const { rows, extent } = await endpointDeliveryRepository.page(this.options.sql, id, page);
    return toPage(rows.map(toDelivery), extent, page);
  }

  /** A new delivery of the same event (same event id, same body) to the endpoint's current URL. */
  async redeliver(ctx: CallContext, id: string, deliveryId: string): Promise<EndpointDelivery> {
    const endpoint = await this.find(ctx, id);
    const newId = randomUUID();
    const created = await endpointDeliveryRepository.redeliver(
      this.options.sql,
      id,
      deliveryId,
      newId,
      endpoint.url,
    );
    if (!created) throw new AppError('DELIVERY_NOT_FOUND');
    return this.stored(id, newId);
  }

  /**
   * Redeliver, for every event of the endpoint whose delivery failed in [from, to) and that is not
   * delivered or queued again since: the agents' bulk redelivery, at most `limit` per request.
   */
  async redeliverFailed(
    ctx: CallContext,
    id: string,
    range: { from: string; to: string; limit: number },
  ): Promise<BulkRedelivery> {
    const endpoint = await this.find(ctx, id);
    const { deliveries, hasMore } = await endpointDeliveryRepository.redeliverFailed(
      this.options.sql,
      id,
      bulkRange(range),
      endpoint.url,
    );
    if (deliveries.length > 0) this.options.onStored();
    return { queued: deliveries.length, has_more: hasMore, deliveries };
  }

  /**
   * A sample of `event` (default CALL_ENDED), marked as a test, sent like any delivery. The event
   * must be one the endpoint subscribes to, except the default, which any endpoint can receive.
   */
  async sendTest(ctx: CallContext, id: string, event?: EndpointEventKind): Promise<EndpointDelivery> {
    const endpoint = await this.find(ctx, id);
    const kind = event ?? 'CALL_ENDED';
    if (event !== undefined && !endpoint.events.includes(event))
      throw AppError.validation([
        {
          loc: ['body', 'event'],
          msg: `must be one of the endpoint's events: ${endpoint.events.join(', ')}`,
          type: 'event_not_subscribed',
        },
      ]);
    const deliveryId = randomUUID();
    const eventId = randomUUID();
    const accountId = requireAccount(ctx);
    const body = endpointBody({
      kind,
      eventId,
      occurredAt: new Date().toISOString(),
      accountId,
      data: sampleEndpointData(kind, this.options.links()),
    });
    await endpointDeliveryRepository.insertTest(this.options.sql, {
      id: deliveryId,
      accountId,
      endpointId: id,
      eventId,
      kind,
      url: endpoint.url,
      body,
    });
    return this.stored(id, deliveryId);
  }

  private async find(ctx: CallContext, id: string): Promise<EndpointRow> {
    const row = await endpointRepository.find(this.options.sql, requireAccount(ctx), id);
    if (!row) throw notFound();
    return row;
  }

  /** The agents' webhook rule: no private or local address unless the operator allows them (DNS included). */
  private async checkUrl(url: string): Promise<string> {
    const verdict = await checkWebhookUrl(url, { allowPrivate: this.options.allowPrivate });
    if (verdict.ok) return verdict.url;
    throw AppError.validation([{ loc: ['body', 'url'], msg: verdict.reason, type: 'url_not_allowed' }]);
  }

  private async stored(endpointId: string, id: string): Promise<EndpointDelivery> {
    this.options.onStored();
    const row = await endpointDeliveryRepository.find(this.options.sql, endpointId, id);
    if (!row) throw new Error(`webhook delivery ${id} vanished after it was stored`);
    return toDelivery(row);
  }
}
