import type { RetryConfig } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { lifecycleEventOf, retriesExhausted } from '../src/domain/webhook-events';

describe('lifecycleEventOf', () => {
  it('names the moves webhook endpoints hear of', () => {
    expect(lifecycleEventOf('preparing', 'running')).toBe('CAMPAIGN_STARTED');
    expect(lifecycleEventOf('scheduled', 'running')).toBe('CAMPAIGN_STARTED');
    expect(lifecycleEventOf('running', 'paused')).toBe('CAMPAIGN_PAUSED');
    expect(lifecycleEventOf('paused', 'running')).toBe('CAMPAIGN_RESUMED');
    expect(lifecycleEventOf('running', 'completed')).toBe('CAMPAIGN_COMPLETED');
    expect(lifecycleEventOf('paused', 'cancelled')).toBe('CAMPAIGN_CANCELLED');
    expect(lifecycleEventOf('preparing', 'cancelled')).toBe('CAMPAIGN_CANCELLED');
  });

  it('names no event for a move that is none of them, or for no move', () => {
    expect(lifecycleEventOf('preparing', 'scheduled')).toBeUndefined();
    expect(lifecycleEventOf('running', 'running')).toBeUndefined();
    expect(lifecycleEventOf('draft', 'preparing')).toBeUndefined();
  });
});

describe('retriesExhausted', () => {
  const retry: RetryConfig = { on_statuses: ['no_answer', 'busy'], max_retries: 2, interval_seconds: 60 };

  it('holds once the last allowed attempt (1 + max_retries) ended with a retried outcome', () => {
    expect(retriesExhausted({ outcome: 'no_answer', attempts: 3, retry })).toBe(true);
    expect(retriesExhausted({ outcome: 'busy', attempts: 3, retry })).toBe(true);
    expect(retriesExhausted({ outcome: 'no_answer', attempts: 1, retry: { ...retry, max_retries: 0 } })).toBe(
      true,
    );
  });

  it('does not hold while retries are left, for an outcome not retried, or without a retry_config', () => {
    expect(retriesExhausted({ outcome: 'no_answer', attempts: 2, retry })).toBe(false);
    expect(retriesExhausted({ outcome: 'voicemail', attempts: 3, retry })).toBe(false);
    expect(retriesExhausted({ outcome: 'completed', attempts: 3, retry })).toBe(false);
    expect(retriesExhausted({ outcome: 'no_answer', attempts: 3, retry: null })).toBe(false);
  });
});
