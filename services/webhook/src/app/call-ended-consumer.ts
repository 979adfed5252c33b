import { randomUUID } from 'node:crypto';
import {
  type AGENT,
  type AgentCopies,
  AppError,
  type Bus,
  consumeCallEnded,
  type Logger,
  processOnce,
  type Sql,
  type Subscription,
} from '@voice/shared';
import type { z } from 'zod';
import { deliveryRepository } from '../db/deliveries';
import { callEndedPayload, type PayloadLinks } from '../domain/payload';

/** Where an agent's events go (secret included); null = nowhere. */
export type WebhookTarget = z.output<typeof AGENT.webhookTarget.reply>;

export interface CallEndedConsumerOptions {
  bus: Bus;
  /** The agents' current targets, kept between events (dropped when an agent changes). */
  targets: AgentCopies<WebhookTarget>;
  sql: Sql;
  log: Logger;
  links: () => PayloadLinks;
  /** Called after a delivery was stored, so the worker sends it without waiting for its poll. */
  onStored: () => void;
}

/**
 * CALL_ENDED → at most one delivery row per event (processOnce): a redelivered event finds its
 * processed-event row and stores nothing again. Sending happens in the worker, never here.
 */
export function consumeWebhookCallEnded(options: CallEndedConsumerOptions): Promise<Subscription> {
  const { bus, sql } = options;
  /** Where the agent's CALL_ENDED goes now (a copy kept between events); null: nowhere. */
  const targetOf = async (accountId: string, agentId: string): Promise<WebhookTarget> => {
    try {
      const target = await options.targets.get({ requestId: randomUUID(), accountId }, agentId);
      return target?.events.includes('CALL_ENDED') ? target : null;
    } catch (error) {
      // An agent deleted since the call: nothing to deliver. Anything else: redelivered later.
      if (error instanceof AppError && error.code === 'AGENT_NOT_FOUND') return null;
      throw error;
    }
  };
  return consumeCallEnded({
    bus,
    log: options.log,
    durable: 'webhook-call-ended',
    retryDelayMs: (count) => Math.min(30_000, 500 * 2 ** (count - 1)),
    // Most agents have no webhook: their calls' events are acked without reading the call.
    wants: async ({ accountId, agentId }) => (await targetOf(accountId, agentId)) !== null,
    handle: async ({ eventId, accountId, call }) => {
      const target = await targetOf(accountId, call.agent_id);
      if (!target) return;
      const payload = callEndedPayload(call, options.links());
      const result = await processOnce(sql, 'webhook', 'call-ended', eventId, async (tx) => {
        await deliveryRepository.insert(tx, {
          id: randomUUID(),
          account_id: accountId,
          agent_id: call.agent_id,
          event_id: eventId,
          event: 'CALL_ENDED',
          session_id: call.session_id,
          url: target.url,
          secret: target.secret,
          payload,
        });
      });
      if (!result.duplicate) options.onStored();
    },
  });
}
