/** One account's line in the dial queue, as the round-robin sees it. */
export interface Line {
  /** Calls waiting in it. */
  waiting: number;
  /**
   * Calls it may still start now: the slots its account had free at the last look, less what was
   * dialed since (Infinity while unknown; the database has the last word). 0 skips the line.
   */
  allowance: number;
}

export interface Turns {
  /** Calls to take from each line, by index. */
  take: number[];
  /** The line to start the next round at: the one after the last served (0 when none was). */
  next: number;
}

/**
 * Round-robin between accounts: `budget` calls (the instance's dial tokens) dealt one per line in
 * turn from `start`, skipping lines that are empty or at their allowance, until the budget or the
 * takers run out. One account's burst therefore takes at most an equal share of a round while
 * others wait, and its backlog never delays another account's first call beyond one round. Every
 * call costs the same (one dial), so plain round-robin is already deficit round-robin's fairness.
 */
export function dealTurns(lines: readonly Line[], start: number, budget: number): Turns {
  const take = lines.map(() => 0);
  const room = lines.map((line) => Math.max(0, Math.min(line.waiting, line.allowance)));
  const count = lines.length;
  let next = 0;
  if (count === 0) return { take, next };
  // The lines that can take a call, in serving order; each pass drops the ones that filled up.
  let takers: number[] = [];
  for (let i = 0; i < count; i++) {
    const index = (((start + i) % count) + count) % count;
    if (room[index]! > 0) takers.push(index);
  }
  let left = Math.max(0, Math.floor(budget));
  while (left > 0 && takers.length > 0) {
    const still: number[] = [];
    for (const index of takers) {
      if (left === 0) break;
      take[index]! += 1;
      left -= 1;
      next = (index + 1) % count;
      if (take[index]! < room[index]!) still.push(index);
    }
    takers = still;
  }
  return { take, next };
}
