import type { CampaignCounts, ContactState } from '@voice/shared/contracts';

/** `n` contacts went from one state to another in a change. */
export interface ContactMove {
  from: ContactState;
  to: ContactState;
  n: number;
}

/**
 * The counts after `moves`, from the counts stored before them; undefined when they do not add up
 * (a state would go below zero), which means the stored counts were wrong: count the contacts then.
 */
export function applyMoves(
  counts: CampaignCounts,
  moves: readonly ContactMove[],
): CampaignCounts | undefined {
  const next = { ...counts };
  for (const { from, to, n } of moves) {
    if (n === 0 || from === to) continue;
    next[from] -= n;
    next[to] += n;
    if (next[from] < 0) return undefined;
  }
  return next;
}

/** Whether nothing is left to dial or to hear back from. */
export function isIdle(counts: CampaignCounts): boolean {
  return counts.pending + counts.in_progress === 0;
}
