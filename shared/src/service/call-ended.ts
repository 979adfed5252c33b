import type { Bus, Subscription } from '../bus/types';
import { type Call, CallEnded, EVENTS, eventFilter, STREAMS } from '../contracts/index';
import type { Logger } from '../log';

export interface CallEndedEvent {
  /** The event's id (the call's id: one CALL_ENDED per call), for processOnce. */
  eventId: string;
  accountId: string;
  call: Call;
}

export interface CallEndedConsumer {
  bus: Bus;
  log: Logger;
  /** The durable consumer's name: replicas of one service share it, each service has its own. */
  durable: string;
  ackWaitMs?: number;
  retryDelayMs: (deliveryCount: number) => number;
  /**
   * Only calls placed by a campaign reach `handle`; the others are acked unread (their envelope is
   * not checked against the contract either): the campaign service receives every CALL_ENDED, and
   * most calls are not its own.
   */
  campaignCallsOnly?: boolean;
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
      if (options.campaignCallsOnly && !campaignIdOf(envelope.data)) return;
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

/** The campaign id a CALL_ENDED payload carries, read without parsing the rest. */
function campaignIdOf(data: unknown): unknown {
  const call = (data as { call?: { campaign_id?: unknown } } | null | undefined)?.call;
  return call?.campaign_id;
}
