import { describe, expect, it } from 'vitest';
import { admit, dialSpacingMs } from '../src/domain/admission';
import { chooseRoute } from '../src/domain/routing';

const T0 = 1_800_000_000_000;
const unlimited = { max_concurrent_calls: null, calls_per_second: null };

describe('admission of a call to a trunk', () => {
  it('admits anything on a trunk without limits, and paces nothing', () => {
    expect(admit(unlimited, { active: 10_000, nextDialAt: null }, T0)).toEqual({
      outcome: 'admit',
      nextDialAt: null,
    });
  });

  it('waits for a slot once max_concurrent_calls calls are up, whatever the pacing', () => {
    const limits = { max_concurrent_calls: 2, calls_per_second: null };
    expect(admit(limits, { active: 1, nextDialAt: null }, T0)).toMatchObject({ outcome: 'admit' });
    expect(admit(limits, { active: 2, nextDialAt: null }, T0)).toEqual({
      outcome: 'wait',
      reason: 'max_concurrent_calls',
      retryAt: null,
    });
    expect(admit(limits, { active: 3, nextDialAt: null }, T0)).toMatchObject({
      reason: 'max_concurrent_calls',
    });
  });

  it('paces starts evenly at calls_per_second: never two inside one spacing', () => {
    const limits = { max_concurrent_calls: null, calls_per_second: 4 };
    expect(dialSpacingMs(4)).toBe(250);
    const first = admit(limits, { active: 0, nextDialAt: null }, T0);
    expect(first).toEqual({ outcome: 'admit', nextDialAt: T0 + 250 });
    expect(admit(limits, { active: 1, nextDialAt: T0 + 250 }, T0 + 249)).toEqual({
      outcome: 'wait',
      reason: 'calls_per_second',
      retryAt: T0 + 250,
    });
    expect(admit(limits, { active: 1, nextDialAt: T0 + 250 }, T0 + 250)).toEqual({
      outcome: 'admit',
      nextDialAt: T0 + 500,
    });
    // After a quiet spell the next start is paced from now, not from the past: no burst to catch up.
    expect(admit(limits, { active: 0, nextDialAt: T0 + 500 }, T0 + 60_000)).toEqual({
      outcome: 'admit',
      nextDialAt: T0 + 60_250,
    });
  });

  it('holds a simulated second to its calls_per_second, fractional rates included', () => {
    for (const cps of [0.5, 1, 3, 7.5, 50]) {
      const limits = { max_concurrent_calls: null, calls_per_second: cps };
      let load = { active: 0, nextDialAt: null as number | null };
      const starts: number[] = [];
      for (let now = T0; now < T0 + 10_000; now += 1) {
        const decision = admit(limits, load, now);
        if (decision.outcome === 'admit') {
          starts.push(now);
          load = { active: 0, nextDialAt: decision.nextDialAt };
        }
      }
      // Every one-second window, wherever it begins, holds at most ceil(cps) starts.
      for (const start of starts) {
        const inWindow = starts.filter((s) => s >= start && s < start + 1000).length;
        expect(inWindow, `cps ${cps}`).toBeLessThanOrEqual(Math.ceil(cps));
      }
      expect(starts.length, `cps ${cps}`).toBeGreaterThanOrEqual(Math.floor(cps * 10) - 1);
    }
  });

  it('checks concurrency before pacing: a full trunk waits for a slot, not for a time', () => {
    const limits = { max_concurrent_calls: 1, calls_per_second: 1 };
    expect(admit(limits, { active: 1, nextDialAt: T0 + 500 }, T0)).toMatchObject({
      reason: 'max_concurrent_calls',
    });
  });
});

describe('routing a call by its source number', () => {
  const listed = { id: 'listed', by_number: true, is_default: false };
  const fallback = { id: 'default', by_number: false, is_default: true };

  it('prefers the trunk listing the number, then the default, then the simulated carrier', () => {
    expect(chooseRoute([fallback, listed], 'on')).toEqual({
      carrier: 'sip',
      matched: 'source_number',
      trunk: listed,
    });
    expect(chooseRoute([fallback], 'on')).toEqual({
      carrier: 'sip',
      matched: 'default_trunk',
      trunk: fallback,
    });
    expect(chooseRoute([], 'on')).toEqual({ carrier: 'simulated', matched: 'simulated', trunk: null });
  });

  it('with the simulated carrier off, has no route when no trunk fits, but still routes to trunks', () => {
    expect(chooseRoute([], 'off')).toEqual({ carrier: 'none' });
    expect(chooseRoute([fallback], 'off')).toMatchObject({ carrier: 'sip', matched: 'default_trunk' });
  });
});
