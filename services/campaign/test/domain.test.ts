import type { RetryConfig } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { countsFrom } from '../src/db/campaign-rows';
import { afterPlacementError, decideAfterCall } from '../src/domain/attempts';
import { classifyContact } from '../src/domain/contacts';
import { applyAdded, applyMoves, duplicatePositions, isIdle, listedTotal } from '../src/domain/counts';
import {
  completesWhenIdle,
  initialStatus,
  isLastingFailure,
  moveFor,
  nextPreparationStep,
  PREPARE_BATCH,
  refusedChange,
} from '../src/domain/lifecycle';

describe('classifyContact', () => {
  it('takes the number from phone_column and keeps every other key as the contact', () => {
    expect(classifyContact({ phone: '+14155550123', name: 'Dana', vip: true, n: 3 }, 'phone')).toEqual({
      phone_number: '+14155550123',
      data: { name: 'Dana', vip: true, n: 3 },
      skip_reason: null,
    });
    expect(classifyContact({ mobile: ' +14155550123 ', phone: 'not this one' }, 'mobile')).toEqual({
      phone_number: '+14155550123',
      data: { phone: 'not this one' },
      skip_reason: null,
    });
  });

  it("reads only the row's own keys: a phone_column named like an Object member finds nothing else", () => {
    for (const column of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(classifyContact({ phone: '+14155550123' }, column), column).toEqual({
        phone_number: null,
        data: { phone: '+14155550123' },
        skip_reason: 'missing_phone',
      });
    }
    expect(classifyContact({ constructor: '+14155550123', name: 'Dana' }, 'constructor')).toEqual({
      phone_number: '+14155550123',
      data: { name: 'Dana' },
      skip_reason: null,
    });
  });

  it.each([
    [{ name: 'No key' }, null],
    [{ phone: null }, null],
    [{ phone: '' }, null],
    [{ phone: '   ' }, null],
  ])('skips %j as missing_phone', (row, phone) => {
    expect(classifyContact(row, 'phone')).toMatchObject({
      phone_number: phone,
      skip_reason: 'missing_phone',
    });
  });

  it.each([
    [{ phone: '4155550123' }, '4155550123'],
    [{ phone: '+04155550123' }, '+04155550123'],
    [{ phone: '+1415555' }, '+1415555'],
    [{ phone: '+1234567890123456' }, '+1234567890123456'],
    [{ phone: '+1 415 555 0123' }, '+1 415 555 0123'],
    [{ phone: 14155550123 }, '14155550123'],
    [{ phone: true }, 'true'],
  ])('skips %j as invalid_phone, keeping what was sent', (row, phone) => {
    expect(classifyContact(row, 'phone')).toEqual({
      phone_number: phone,
      data: {},
      skip_reason: 'invalid_phone',
    });
  });

  it('accepts E.164 at both length limits', () => {
    expect(classifyContact({ phone: '+12345678' }, 'phone').skip_reason).toBeNull();
    expect(classifyContact({ phone: '+123456789012345' }, 'phone').skip_reason).toBeNull();
  });
});

describe('campaign states', () => {
  it.each([
    ['pause', 'running', 'paused'],
    ['resume', 'paused', 'running'],
    ['cancel', 'running', 'cancelled'],
    ['cancel', 'paused', 'cancelled'],
    ['cancel', 'scheduled', 'cancelled'],
    ['cancel', 'preparing', 'cancelled'],
  ] as const)('%s moves %s to %s', (operation, from, to) => {
    expect(moveFor(operation, from)).toEqual({ allowed: true, to });
  });

  it.each([
    ['pause', 'paused'],
    ['pause', 'scheduled'],
    ['pause', 'completed'],
    ['pause', 'cancelled'],
    ['resume', 'running'],
    ['resume', 'scheduled'],
    ['resume', 'completed'],
    ['resume', 'cancelled'],
    ['cancel', 'completed'],
    ['cancel', 'cancelled'],
    ['pause', 'preparing'],
    ['resume', 'preparing'],
  ] as const)('refuses %s from %s, naming the status', (operation, from) => {
    expect(moveFor(operation, from)).toEqual({
      allowed: false,
      detail: `Cannot ${operation} a campaign that is ${from} (status: ${from})`,
    });
  });

  it('completes only a running campaign once idle; a paused one waits for resume', () => {
    expect(completesWhenIdle('running')).toBe(true);
    for (const status of ['paused', 'preparing', 'scheduled', 'draft', 'completed', 'cancelled'] as const) {
      expect(completesWhenIdle(status)).toBe(false);
    }
  });

  it('prepares in steps of PREPARE_BATCH contacts, the last one short', () => {
    expect(nextPreparationStep(0, 3, 5)).toEqual({ from: 0, to: 3, last: true });
    expect(nextPreparationStep(0, 5, 5)).toEqual({ from: 0, to: 5, last: true });
    expect(nextPreparationStep(0, 12, 5)).toEqual({ from: 0, to: 5, last: false });
    expect(nextPreparationStep(5, 12, 5)).toEqual({ from: 5, to: 10, last: false });
    expect(nextPreparationStep(10, 12, 5)).toEqual({ from: 10, to: 12, last: true });
    expect(nextPreparationStep(0, 100_000)).toEqual({ from: 0, to: PREPARE_BATCH, last: false });
  });

  it('starts scheduled only when start_at is ahead', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(initialStatus(null, now)).toBe('running');
    expect(initialStatus(new Date('2025-12-31T23:59:59Z'), now)).toBe('running');
    expect(initialStatus(new Date('2026-01-01T00:00:01Z'), now)).toBe('scheduled');
  });
});

describe('isLastingFailure', () => {
  it('counts what the same step meets again, not a lost connection, a rollback, a timeout or a lock', () => {
    for (const code of ['23514', '23505', '22P02', '42P01', 'P0001', 'XX000']) {
      expect(isLastingFailure(code), code).toBe(true);
    }
    for (const code of ['08006', '40001', '40P01', '53300', '55P03', '57014', '57P01', '58030']) {
      expect(isLastingFailure(code), code).toBe(false);
    }
    for (const code of [undefined, 'ECONNRESET', 'CONNECTION_CLOSED', '', '2350']) {
      expect(isLastingFailure(code), String(code)).toBe(false);
    }
  });
});

describe('decideAfterCall', () => {
  const retry: RetryConfig = { on_statuses: ['no_answer', 'busy'], max_retries: 2, interval_seconds: 30 };
  const decide = (outcome: 'completed' | 'no_answer' | 'busy' | 'voicemail' | 'failed', attempts: number) =>
    decideAfterCall({ outcome, attempts, retry, campaignStatus: 'running' });

  it('retries a listed outcome after interval_seconds while attempts <= max_retries', () => {
    expect(decide('no_answer', 1)).toEqual({ outcome: 'retry', state: 'pending', delayMs: 30_000 });
    expect(decide('busy', 2)).toEqual({ outcome: 'retry', state: 'pending', delayMs: 30_000 });
    expect(decide('no_answer', 3)).toEqual({ outcome: 'final', state: 'no_answer' });
  });

  it('keeps an unlisted outcome, a completed call, or any outcome without retry_config', () => {
    expect(decide('voicemail', 1)).toEqual({ outcome: 'final', state: 'voicemail' });
    expect(decide('completed', 1)).toEqual({ outcome: 'final', state: 'completed' });
    expect(
      decideAfterCall({ outcome: 'no_answer', attempts: 1, retry: null, campaignStatus: 'running' }),
    ).toEqual({ outcome: 'final', state: 'no_answer' });
    expect(
      decideAfterCall({
        outcome: 'no_answer',
        attempts: 1,
        retry: { ...retry, max_retries: 0 },
        campaignStatus: 'running',
      }),
    ).toEqual({ outcome: 'final', state: 'no_answer' });
  });

  it('queues the retry of a paused campaign, but retries nobody in a cancelled one', () => {
    expect(decideAfterCall({ outcome: 'busy', attempts: 1, retry, campaignStatus: 'paused' })).toMatchObject({
      outcome: 'retry',
    });
    expect(decideAfterCall({ outcome: 'busy', attempts: 1, retry, campaignStatus: 'cancelled' })).toEqual({
      outcome: 'final',
      state: 'busy',
    });
  });
});

describe('afterPlacementError', () => {
  it('fails the contact on a definitive refusal and re-sends otherwise', () => {
    for (const code of ['AGENT_NOT_FOUND', 'VALIDATION_FAILED', 'INVALID_STATE', 'NO_SIP_TRUNK'] as const) {
      expect(afterPlacementError(code)).toBe('fail');
    }
    for (const code of ['SERVICE_TIMEOUT', 'SERVICE_UNAVAILABLE', 'INTERNAL', 'SHUTTING_DOWN'] as const) {
      expect(afterPlacementError(code)).toBe('retry');
    }
    expect(afterPlacementError(undefined)).toBe('retry');
  });

  it('skips the contact when its number is on the do-not-call list', () => {
    expect(afterPlacementError('DO_NOT_CALL')).toBe('skip');
  });
});

describe('countsFrom', () => {
  it('has every state, zero when absent, and total as the sum', () => {
    expect(
      countsFrom([
        { state: 'pending', n: 3 },
        { state: 'skipped', n: 2 },
      ]),
    ).toEqual({
      total: 5,
      pending: 3,
      in_progress: 0,
      completed: 0,
      no_answer: 0,
      failed: 0,
      voicemail: 0,
      busy: 0,
      skipped: 2,
      cancelled: 0,
    });
  });
});

describe('applyMoves', () => {
  const counts = { ...countsFrom([]), total: 5, pending: 3, in_progress: 2 };

  it('moves contacts between states and keeps the total', () => {
    const dispatched = applyMoves(counts, [{ from: 'pending', to: 'in_progress', n: 2 }]);
    expect(dispatched).toEqual({ ...counts, pending: 1, in_progress: 4 });
    const ended = applyMoves(dispatched!, [
      { from: 'in_progress', to: 'completed', n: 1 },
      { from: 'in_progress', to: 'pending', n: 1 },
    ]);
    expect(ended).toEqual({ ...counts, pending: 2, in_progress: 2, completed: 1 });
    expect(counts).toEqual({ ...countsFrom([]), total: 5, pending: 3, in_progress: 2 });
  });

  it('answers undefined when the stored counts cannot be right (a state would go below zero)', () => {
    expect(applyMoves(counts, [{ from: 'in_progress', to: 'failed', n: 3 }])).toBeUndefined();
    expect(applyMoves(counts, [{ from: 'completed', to: 'pending', n: 1 }])).toBeUndefined();
  });

  it('idle means nothing pending and nothing in progress', () => {
    expect(isIdle(counts)).toBe(false);
    expect(isIdle({ ...counts, pending: 0, in_progress: 0, completed: 5 })).toBe(true);
    expect(isIdle({ ...counts, pending: 0, in_progress: 1 })).toBe(false);
  });
});

describe('listedTotal', () => {
  const counts = {
    ...countsFrom([
      { state: 'pending', n: 7 },
      { state: 'skipped', n: 3 },
    ]),
  };
  it('is the count of the listed state, or the total', () => {
    expect(listedTotal(counts, undefined, { page: 1, pageSize: 5, shown: 5 })).toBe(10);
    expect(listedTotal(counts, 'skipped', { page: 1, pageSize: 5, shown: 3 })).toBe(3);
    expect(listedTotal(counts, 'completed', { page: 1, pageSize: 5, shown: 0 })).toBe(0);
  });
  it('never says fewer than the pages so far hold', () => {
    expect(listedTotal(counts, 'skipped', { page: 3, pageSize: 5, shown: 2 })).toBe(12);
  });
});

describe('live control', () => {
  it('allows changes and additions until the campaign finished, naming the status when refused', () => {
    for (const status of ['preparing', 'scheduled', 'running', 'paused'] as const) {
      expect(refusedChange('change', status)).toBeUndefined();
      expect(refusedChange('add contacts to', status)).toBeUndefined();
    }
    expect(refusedChange('change', 'completed')).toBe(
      'Cannot change a campaign that is completed (status: completed)',
    );
    expect(refusedChange('add contacts to', 'cancelled')).toBe(
      'Cannot add contacts to a campaign that is cancelled (status: cancelled)',
    );
  });

  it('finds duplicates against the numbers held and earlier in the addition, keeping each first', () => {
    const added = [
      { position: 0, phone_number: '+14155550001' },
      { position: 2, phone_number: '+14155550002' },
      { position: 3, phone_number: '+14155550003' },
      { position: 5, phone_number: '+14155550002' },
    ];
    expect(duplicatePositions(['+14155550001', '+14155550009'], added)).toEqual([0, 5]);
    expect(duplicatePositions([], [])).toEqual([]);
  });

  it('adds joined contacts to the total and their states', () => {
    const counts = { ...countsFrom([{ state: 'completed', n: 2 }]) };
    expect(applyAdded(counts, { pending: 3, skipped: 1 })).toEqual({
      ...counts,
      total: 6,
      pending: 3,
      skipped: 1,
    });
  });
});
