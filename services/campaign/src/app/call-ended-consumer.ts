import {
  type Bus,
  CallEnded,
  EVENTS,
  eventFilter,
  type Logger,
  processOnce,
  type Sql,
  STREAMS,
  type Subscription,
} from '@voice/shared';
import type { CampaignsApp } from './campaigns';

export interface CallEndedConsumerOptions {
  bus: Bus;
  sql: Sql;
  log: Logger;
  campaigns: CampaignsApp;
  /** A slot was freed (or a retry queued): the dispatcher looks at once rather than at its next poll. */
  onSlotFreed: () => void;
}

/** Shorter than JetStream's default, so a replica killed mid-event costs a few seconds, not 30. */
const ACK_WAIT_MS = 10_000;

/**
 * CALL_ENDED of campaign calls → the contact's outcome (or its retry), at most once per event
 * (processOnce, in the same transaction). Replicas share the durable consumer. Never waits on
 * anything but its own transaction: dialing is the dispatcher's.
 */
export function consumeCallEnded(options: CallEndedConsumerOptions): Promise<Subscription> {
  const { bus, sql, log, campaigns } = options;
  return bus.consume({
    stream: STREAMS.callEvents,
    durable: 'campaign-call-ended',
    subjects: [eventFilter(EVENTS.callEnded)],
    ackWaitMs: ACK_WAIT_MS,
    retryDelayMs: (count) => Math.min(10_000, 250 * 2 ** (count - 1)),
    handler: async (msg) => {
      const envelope = msg.data as { id?: string; account_id?: string; data?: unknown };
      const parsed = CallEnded.safeParse(envelope.data);
      if (!envelope.account_id || !parsed.success) {
        log.error({ event_id: msg.id }, 'CALL_ENDED event outside its contract: dropped');
        return;
      }
      const { call } = parsed.data;
      if (!call.campaign_id) return;
      const accountId = envelope.account_id;
      const result = await processOnce(sql, 'campaign', 'call-ended', envelope.id ?? msg.id, (tx) =>
        campaigns.recordCallEnded(tx, accountId, call),
      );
      if (!result.duplicate && result.value) options.onSlotFreed();
    },
  });
}
