import type { CallOutcome, ErrorCode, RetryConfig } from '@voice/shared/contracts';
import type { StoredStatus } from './lifecycle';

/** What happens to a contact once its call ended. */
export type AfterCall =
  | { outcome: 'retry'; state: 'pending'; delayMs: number }
  | { outcome: 'final'; state: CallOutcome };

/**
 * A contact whose call ended: dialed again after `interval_seconds` when the outcome is listed in
 * retry_config and attempts (this one included) have not passed max_retries; otherwise its state
 * is the call's outcome. A cancelled campaign retries nobody; a paused one keeps the retry queued
 * for its resume.
 */
export function decideAfterCall(input: {
  outcome: CallOutcome;
  attempts: number;
  retry: RetryConfig | null;
  campaignStatus: StoredStatus;
}): AfterCall {
  const { outcome, attempts, retry, campaignStatus } = input;
  const retryable =
    retry !== null &&
    outcome !== 'completed' &&
    retry.on_statuses.includes(outcome) &&
    attempts <= retry.max_retries &&
    campaignStatus !== 'cancelled' &&
    campaignStatus !== 'completed';
  if (retryable) return { outcome: 'retry', state: 'pending', delayMs: retry.interval_seconds * 1000 };
  return { outcome: 'final', state: outcome };
}

/** Placement failures that placing again cannot fix (the agent is gone, the request is refused). */
const DEFINITIVE: ReadonlySet<ErrorCode> = new Set([
  'AGENT_NOT_FOUND',
  'NOT_FOUND',
  'VALIDATION_FAILED',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'INVALID_STATE',
  // No trunk carries the campaign's source number and the simulated carrier is off: placing the
  // same call again is refused the same way until an operator adds a trunk.
  'NO_SIP_TRUNK',
]);

/**
 * After a failed placement: `skip` the contact when its number is on the account's do-not-call
 * list (listed before the campaign started or since: the call service checks at every placement),
 * `fail` it when the answer is otherwise definitive, else `retry` the same placement (same call id)
 * once its lease lapses: a timeout may have placed the call.
 */
export function afterPlacementError(code: ErrorCode | undefined): 'skip' | 'fail' | 'retry' {
  if (code === 'DO_NOT_CALL') return 'skip';
  return code !== undefined && DEFINITIVE.has(code) ? 'fail' : 'retry';
}
