import type {
  CAMPAIGN_LIFECYCLE_EVENTS,
  CallOutcome,
  CampaignStatus,
  RetryConfig,
} from '@voice/shared/contracts';
import type { StoredStatus } from './lifecycle';

export type LifecycleEvent = (typeof CAMPAIGN_LIFECYCLE_EVENTS)[number];

/**
 * The lifecycle event a status move is, for account webhook endpoints; undefined for a move that
 * is none (preparing -> scheduled, a change without a move). Started: running for the first time
 * (from preparing or scheduled); resumed: running again after a pause.
 */
export function lifecycleEventOf(from: StoredStatus, to: CampaignStatus): LifecycleEvent | undefined {
  if (from === to) return undefined;
  switch (to) {
    case 'running':
      return from === 'paused' ? 'CAMPAIGN_RESUMED' : 'CAMPAIGN_STARTED';
    case 'paused':
      return 'CAMPAIGN_PAUSED';
    case 'completed':
      return 'CAMPAIGN_COMPLETED';
    case 'cancelled':
      return 'CAMPAIGN_CANCELLED';
    default:
      return undefined;
  }
}

/**
 * Whether a contact's retries are spent: its call ended with an outcome its campaign's
 * retry_config retries, and this attempt was the last one allowed (1 + max_retries). Without a
 * retry_config there are no retries to spend.
 */
export function retriesExhausted(input: {
  outcome: CallOutcome;
  attempts: number;
  retry: RetryConfig | null;
}): boolean {
  const { outcome, attempts, retry } = input;
  return (
    retry !== null &&
    outcome !== 'completed' &&
    retry.on_statuses.includes(outcome) &&
    attempts > retry.max_retries
  );
}
