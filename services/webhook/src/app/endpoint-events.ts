import {
  type Bus,
  type CallEnded,
  type CallProgressed,
  type CampaignLifecycle,
  type ContactExhausted,
  type EndpointEventKind,
  EVENTS,
  type EventContract,
  eventFilter,
  type Logger,
  processOnce,
  type Sql,
  type Subscription,
} from '@voice/shared';
import type { z } from 'zod';
import { endpointRepository } from '../db/endpoints';
import { endpointBody, endpointCallData } from '../domain/endpoint-payload';
import type { PayloadLinks } from '../domain/payload';
import { SubscribedCheck } from './subscribed-check';

export interface EndpointEventsOptions {
  bus: Bus;
  sql: Sql;
  log: Logger;
  links: () => PayloadLinks;
  /** Called after deliveries were stored, so the worker sends them without waiting for its poll. */
  onStored: () => void;
}

/** One durable event source: which contract, its consumer's name, and the endpoint event it is. */
interface Source<D extends z.ZodType> {
  contract: EventContract<D>;
  durable: string;
  kind: (data: z.output<D>) => EndpointEventKind;
  data: (data: z.output<D>, links: PayloadLinks) => unknown;
}

const source = <D extends z.ZodType>(s: Source<D>) => s;

/**
 * The events account endpoints hear of, each from the durable stream its service's outbox feeds:
 * a call's ringing and answer (CALL_PROGRESS_EVENTS), its end (CALL_EVENTS, a consumer of its own
 * beside the agents' webhooks), a campaign's lifecycle and exhausted contacts (CAMPAIGN_EVENTS).
 */
const SOURCES = [
  source({
    contract: EVENTS.callProgressed,
    durable: 'webhook-endpoints-call-progress',
    kind: (data: z.output<typeof CallProgressed>) =>
      data.status === 'ringing' ? 'CALL_RINGING' : 'CALL_ANSWERED',
    data: (data, links) => endpointCallData(data.call, links),
  }),
  source({
    contract: EVENTS.callEnded,
    durable: 'webhook-endpoints-call-ended',
    kind: (_: z.output<typeof CallEnded>) => 'CALL_ENDED',
    data: (data, links) => endpointCallData(data.call, links),
  }),
  source({
    contract: EVENTS.campaignLifecycle,
    durable: 'webhook-endpoints-campaign-lifecycle',
    kind: (data: z.output<typeof CampaignLifecycle>) => data.event,
    data: (data) => data.campaign,
  }),
  source({
    contract: EVENTS.contactExhausted,
    durable: 'webhook-endpoints-contact-exhausted',
    kind: (_: z.output<typeof ContactExhausted>) => 'CONTACT_EXHAUSTED',
    data: (data) => data,
  }),
];

/**
 * Each event becomes one delivery per enabled endpoint of its account subscribed to it, stored
 * with the event's inbox row in one transaction (processOnce): a redelivered event stores
 * nothing again, so every endpoint gets it exactly once however often the bus hands it over.
 * Sending is the delivery worker's, as for agents' webhooks.
 */
export function consumeEndpointEvents(options: EndpointEventsOptions): Promise<Subscription>[] {
  const subscribed = new SubscribedCheck(options.sql);
  return SOURCES.map((s) => consumeSource(options, subscribed, s as Source<z.ZodType>));
}

function consumeSource(
  options: EndpointEventsOptions,
  subscribed: SubscribedCheck,
  s: Source<z.ZodType>,
): Promise<Subscription> {
  const { bus, sql, log } = options;
  const stream = s.contract.stream;
  if (!stream) throw new Error(`${s.contract.prefix} is a live event: no endpoint can rely on it`);
  return bus.consume({
    stream,
    durable: s.durable,
    subjects: [eventFilter(s.contract)],
    retryDelayMs: (count) => Math.min(30_000, 500 * 2 ** (count - 1)),
    handler: async (msg) => {
      const envelope = msg.data as { id?: string; account_id?: string; occurred_at?: string; data?: unknown };
      const parsed = s.contract.data.safeParse(envelope.data);
      if (!envelope.account_id || !parsed.success) {
        log.error({ event_id: msg.id, subject: msg.subject }, 'endpoint event outside its contract: dropped');
        return;
      }
      const accountId = envelope.account_id;
      const kind = s.kind(parsed.data);
      // Most accounts have no endpoint for most events: acked without a transaction.
      if (!(await subscribed.has(accountId, kind))) return;
      const eventId = envelope.id ?? msg.id;
      const body = endpointBody({
        kind,
        eventId,
        occurredAt: envelope.occurred_at ?? new Date().toISOString(),
        accountId,
        data: s.data(parsed.data, options.links()),
      });
      const result = await processOnce(sql, 'webhook', s.durable, eventId, (tx) =>
        endpointRepository.fanOut(tx, { accountId, eventId, kind, body }),
      );
      if (!result.duplicate && result.value > 0) options.onStored();
    },
  });
}
