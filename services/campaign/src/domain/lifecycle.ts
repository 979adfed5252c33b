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
 * Statuses in which a campaign's settings may change and contacts may be added (PATCH, POST
 * .../contacts): any not finished. `preparing` too: its settings are read only once it dials, and
 * added contacts join the end of the list its preparation is still checking.
 */
const OPEN: readonly StoredStatus[] = ['preparing', 'scheduled', 'running', 'paused'];

/** Why a change of a campaign in `status` is refused (the 409's detail), or undefined when it is allowed. */
export function refusedChange(
  action: 'change' | 'add contacts to',
  status: CampaignStatus,
): string | undefined {
  if (OPEN.includes(status)) return undefined;
  return `Cannot ${action} a campaign that is ${status} (status: ${status})`;
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

/** Steps in a row that may fail with a lasting error before the preparation has failed. */
export const PREPARATION_ATTEMPTS = 3;

/**
 * SQLSTATE classes a retry of the same step can get past: a lost connection (08), a rolled-back
 * transaction (40: serialization failure, deadlock), the server short of resources (53), a lock not
 * available (55), an operator's intervention or a timeout (57), a system error (58). An error with no
 * SQLSTATE never reached the database's answer (a connection that broke). Anything else (a
 * constraint, a bad value, a missing relation) is met again by the same step on the same rows.
 */
const PASSING_CLASSES: ReadonlySet<string> = new Set(['08', '40', '53', '55', '57', '58']);

/** Whether a step that failed with this SQLSTATE (undefined: none) counts toward its preparation's failure. */
export function isLastingFailure(sqlState: string | undefined): boolean {
  if (sqlState === undefined || !/^[0-9A-Z]{5}$/.test(sqlState)) return false;
  return !PASSING_CLASSES.has(sqlState.slice(0, 2));
}

/** What a client reads on a campaign whose preparation failed. */
export function preparationFailureReason(sqlState: string): string {
  return (
    `Preparation failed: the contact list could not be checked (database error ${sqlState}). ` +
    'Nobody was dialed; create the campaign again.'
  );
}
