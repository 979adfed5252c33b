import type { CampaignStatus } from '@voice/shared/contracts';

/** A campaign's status as stored: the public ones plus `draft` (contacts still arriving). */
export type StoredStatus = CampaignStatus | 'draft';

export type Operation = 'pause' | 'resume' | 'cancel';

/** The campaign states (docs/api-guide.md, "Campaigns"): which status each operation leaves from, and where it goes. */
const MOVES: Record<Operation, { from: readonly StoredStatus[]; to: CampaignStatus }> = {
  pause: { from: ['running'], to: 'paused' },
  resume: { from: ['paused'], to: 'running' },
  cancel: { from: ['preparing', 'scheduled', 'running', 'paused'], to: 'cancelled' },
};

const VERB: Record<Operation, string> = { pause: 'pause', resume: 'resume', cancel: 'cancel' };

export type Move = { allowed: true; to: CampaignStatus } | { allowed: false; detail: string };

/** The move an operation makes from `status`, or why it is refused (the 409's detail). */
export function moveFor(operation: Operation, status: CampaignStatus): Move {
  const move = MOVES[operation];
  if (move.from.includes(status)) return { allowed: true, to: move.to };
  return {
    allowed: false,
    detail: `Cannot ${VERB[operation]} a campaign that is ${status} (status: ${status})`,
  };
}

/**
 * Whether a campaign is finished once nothing is left to dial: only a running campaign completes
 * (`running -> completed`); a paused one waits for resume, which then completes it.
 */
export function completesWhenIdle(status: StoredStatus): boolean {
  return status === 'running';
}

/** A prepared campaign with `start_at` still ahead waits, scheduled; otherwise it runs at once. */
export function initialStatus(startAt: Date | null, now: Date): 'scheduled' | 'running' {
  return startAt && startAt.getTime() > now.getTime() ? 'scheduled' : 'running';
}

/**
 * Contacts checked for duplicates per step of a preparation: what one transaction does, in a start
 * (the first step) or in the background loop, whatever the list's length.
 */
export const PREPARE_BATCH = 5_000;

/** The positions the next step of a preparation checks, and whether it is the last step. */
export function nextPreparationStep(
  preparedThrough: number,
  total: number,
  batch = PREPARE_BATCH,
): { from: number; to: number; last: boolean } {
  const to = Math.min(preparedThrough + batch, total);
  return { from: preparedThrough, to, last: to >= total };
}
