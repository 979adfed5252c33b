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

/** The counts after contacts joined the campaign: `pending` to be dialed, `skipped` never. */
export function applyAdded(
  counts: CampaignCounts,
  added: { pending: number; skipped: number },
): CampaignCounts {
  return {
    ...counts,
    total: counts.total + added.pending + added.skipped,
    pending: counts.pending + added.pending,
    skipped: counts.skipped + added.skipped,
  };
}

/**
 * The positions of `dialable` (in position order) whose number is among `existing` or came earlier
 * in the list: each number of a campaign is dialed once.
 */
export function duplicatePositions(
  existing: Iterable<string>,
  dialable: readonly { position: number; phone_number: string }[],
): number[] {
  const seen = new Set(existing);
  const duplicates: number[] = [];
  for (const { position, phone_number } of dialable) {
    if (seen.has(phone_number)) duplicates.push(position);
    else seen.add(phone_number);
  }
  return duplicates;
}

/** Whether nothing is left to dial or to hear back from. */
export function isIdle(counts: CampaignCounts): boolean {
  return counts.pending + counts.in_progress === 0;
}

/**
 * The total of a list of a campaign's contacts (all of them, or those in `state`) from its counts,
 * never fewer than the pages so far hold (counts a test or an operator damaged are recounted at
 * the campaign's next change, but a page must not contradict itself meanwhile).
 */
export function listedTotal(
  counts: CampaignCounts,
  state: ContactState | undefined,
  page: { page: number; pageSize: number; shown: number },
): number {
  const counted = state ? counts[state] : counts.total;
  return Math.max(counted, (page.page - 1) * page.pageSize + page.shown);
}
