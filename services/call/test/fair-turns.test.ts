import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dealTurns, type Line } from '../src/domain/fair-turns';

const INF = Number.POSITIVE_INFINITY;

describe('dealTurns: round-robin of dial tokens between accounts', () => {
  it('gives a one-call account its call in the same round as a burst, whatever the burst’s size', () => {
    const burst: Line = { waiting: 10_000, allowance: INF };
    const single: Line = { waiting: 1, allowance: INF };
    // The burst came first and is first in turn: the single call still goes in this round.
    expect(dealTurns([burst, single], 0, 5)).toEqual({ take: [4, 1], next: 1 });
    // With a budget of one, the burst takes it, and the next round starts at the single call.
    expect(dealTurns([burst, single], 0, 1)).toEqual({ take: [1, 0], next: 1 });
    expect(dealTurns([burst, single], 1, 1)).toEqual({ take: [0, 1], next: 0 });
  });

  it('shares a budget evenly, starting where the last round stopped', () => {
    const lines = [10, 10, 10].map((waiting) => ({ waiting, allowance: INF }));
    expect(dealTurns(lines, 0, 7)).toEqual({ take: [3, 2, 2], next: 1 });
    expect(dealTurns(lines, 1, 7)).toEqual({ take: [2, 3, 2], next: 2 });
    expect(dealTurns(lines, 2, 2)).toEqual({ take: [1, 0, 1], next: 1 });
  });

  it('skips accounts at their limit and empty lines without wasting tokens on them', () => {
    const lines: Line[] = [
      { waiting: 50, allowance: 0 },
      { waiting: 0, allowance: INF },
      { waiting: 50, allowance: 2 },
      { waiting: 3, allowance: INF },
    ];
    expect(dealTurns(lines, 0, 100)).toEqual({ take: [0, 0, 2, 3], next: 0 });
    expect(dealTurns([{ waiting: 5, allowance: 0 }], 0, 10)).toEqual({ take: [0], next: 0 });
    expect(dealTurns([], 0, 10)).toEqual({ take: [], next: 0 });
  });

  it('never deals more than the budget, a line’s waiting calls or its allowance; spends all it can; is fair', () => {
    const line = fc.record({
      waiting: fc.nat(40),
      allowance: fc.oneof(fc.nat(40), fc.constant(INF)),
    });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.nat(30), fc.nat(100), (lines, start, budget) => {
        const { take, next } = dealTurns(lines, start, budget);
        const room = lines.map((l) => Math.min(l.waiting, l.allowance));
        const dealt = take.reduce((a, b) => a + b, 0);
        expect(dealt).toBe(
          Math.min(
            budget,
            room.reduce((a, b) => a + b, 0),
          ),
        );
        take.forEach((n, i) => {
          expect(n).toBeGreaterThanOrEqual(0);
          expect(n).toBeLessThanOrEqual(room[i]!);
        });
        // Fair: a line given fewer than it could take got at least as many as any other, less one.
        const most = Math.max(0, ...take);
        take.forEach((n, i) => {
          if (n < room[i]!) expect(n).toBeGreaterThanOrEqual(most - 1);
        });
        expect(next).toBeGreaterThanOrEqual(0);
        expect(next).toBeLessThan(Math.max(1, lines.length));
      }),
    );
  });
});
