/** Attempts in all for one delivery (three, as the API documents). */
export const MAX_ATTEMPTS = 3;

export type AttemptOutcome =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string | null };

export type Decision =
  | { outcome: 'succeeded' }
  | { outcome: 'retry'; delayMs: number }
  | { outcome: 'failed' };

/** Success is any 2xx: anything else is a failed attempt. */
export function isSuccessStatus(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * What follows attempt `attemptNumber` (1-based): success ends the delivery; otherwise retry after
 * baseMs × 2^(attempt−1) until MAX_ATTEMPTS attempts were made, then it failed.
 */
export function decideAfterAttempt(attemptNumber: number, outcome: AttemptOutcome, baseMs: number): Decision {
  if (outcome.ok) return { outcome: 'succeeded' };
  if (attemptNumber >= MAX_ATTEMPTS) return { outcome: 'failed' };
  return { outcome: 'retry', delayMs: baseMs * 2 ** (attemptNumber - 1) };
}
