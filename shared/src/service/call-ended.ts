import type { Bus, Subscription } from '../bus/types';
import { type Call, CallEnded, EVENTS, eventFilter, STREAMS } from '../contracts/index';
import type { Logger } from '../log';

export interface CallEndedEvent {
  /** The event's id (the call's id: one CALL_ENDED per call), for processOnce. */
  eventId: string;
  accountId: string;
  call: Call;
}

export interface CallEndedGlance {
  accountId: string;
  agentId: string;
  campaignId: string | null;
}

export interface CallEndedConsumer {
  bus: Bus;
  log: Logger;
  /** The durable consumer's name: replicas of one service share it, each service has its own. */
  durable: string;
  ackWaitMs?: number;
  retryDelayMs: (deliveryCount: number) => number;
  /**
   * Decides from a glance at the event (its account, agent and campaign, read without parsing the
   * call) whether `handle` wants it; an event it does not want is acked unread, not even checked
   * against the contract. Every service receives every CALL_ENDED, and most are of no interest to
   * it (calls no campaign placed; agents without a webhook). An event whose ids cannot be read is
   * not glanced at: it goes to the contract check, which drops it with a log line. A throw
   * redelivers the event, as a failing `handle` does.
   */
  wants?: (glance: CallEndedGlance) => boolean | Promise<boolean>;
  /** Must be idempotent (processOnce): an event can be delivered again after a crash. */
  handle: (event: CallEndedEvent) => Promise<void>;
}

/**
 * A durable consumer of CALL_ENDED, shared by the services that act on finished calls: decodes
 * the envelope against its contract (an event outside it is logged and dropped, never retried
 * forever) and hands the call to `handle`; a failure redelivers after `retryDelayMs`.
 */
export function consumeCallEnded(options: CallEndedConsumer): Promise<Subscription> {
  const { log } = options;
  return options.bus.consume({
    stream: STREAMS.callEvents,
    durable: options.durable,
    subjects: [eventFilter(EVENTS.callEnded)],
    ...(options.ackWaitMs ? { ackWaitMs: options.ackWaitMs } : {}),
    retryDelayMs: options.retryDelayMs,
    handler: async (msg) => {
      const envelope = msg.data as { id?: string; account_id?: string; data?: unknown };
      const glance = options.wants ? glanceAt(envelope) : undefined;
      if (glance && !(await options.wants!(glance))) return;
      const parsed = CallEnded.safeParse(envelope.data);
      if (!envelope.account_id || !parsed.success) {
        log.error({ event_id: msg.id }, 'CALL_ENDED event outside its contract: dropped');
        return;
      }
      await options.handle({
        eventId: envelope.id ?? msg.id,
        accountId: envelope.account_id,
        call: parsed.data.call,
      });
    },
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isId = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** The ids a CALL_ENDED envelope carries, read without parsing the call; undefined if any is off. */
function glanceAt(envelope: { account_id?: unknown; data?: unknown }): CallEndedGlance | undefined {
  const call = (envelope.data as { call?: Record<string, unknown> } | null | undefined)?.call;
  if (typeof envelope.account_id !== 'string' || !call || !isId(call.agent_id)) return undefined;
  const campaignId = call.campaign_id ?? null;
  if (campaignId !== null && !isId(campaignId)) return undefined;
  return { accountId: envelope.account_id, agentId: call.agent_id, campaignId };
}
