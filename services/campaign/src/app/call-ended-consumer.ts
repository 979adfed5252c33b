import {
  type Bus,
  consumeCallEnded,
  type Logger,
  processOnce,
  type Sql,
  type Subscription,
} from '@voice/shared';
import type { CampaignsApp } from './campaigns';
import type { CampaignMetrics } from './metrics';

export interface CallEndedConsumerOptions {
  bus: Bus;
  sql: Sql;
  log: Logger;
  campaigns: CampaignsApp;
  /** A slot was freed (or a retry queued): the dispatcher looks at once rather than at its next poll. */
  onSlotFreed: () => void;
  metrics?: CampaignMetrics | undefined;
}

/** Shorter than JetStream's default, so a replica killed mid-event costs a few seconds, not 30. */
const ACK_WAIT_MS = 10_000;

/**
 * CALL_ENDED of campaign calls → the contact's outcome (or its retry), at most once per event
 * (processOnce, in the same transaction). Replicas share the durable consumer. Never waits on
 * anything but its own transaction: dialing is the dispatcher's.
 */
export function consumeCampaignCallEnded(options: CallEndedConsumerOptions): Promise<Subscription> {
  const { sql, campaigns } = options;
  return consumeCallEnded({
    bus: options.bus,
    log: options.log,
    durable: 'campaign-call-ended',
    wants: ({ campaignId }) => campaignId !== null,
    ackWaitMs: ACK_WAIT_MS,
    retryDelayMs: (count) => Math.min(10_000, 250 * 2 ** (count - 1)),
    handle: async ({ eventId, accountId, call }) => {
      if (!call.campaign_id) return;
      const started = performance.now();
      let locked: number | undefined;
      const result = await processOnce(sql, 'campaign', 'call-ended', eventId, (tx) =>
        campaigns.recordCallEnded(tx, accountId, call, () => {
          locked = performance.now();
        }),
      );
      const committed = performance.now();
      const recorded = !result.duplicate && result.value;
      options.metrics?.callEnded(recorded ? 'recorded' : 'unchanged', {
        seconds: (committed - started) / 1000,
        lockedSeconds: locked === undefined ? undefined : (committed - locked) / 1000,
      });
      if (recorded) options.onSlotFreed();
    },
  });
}
