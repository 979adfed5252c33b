/**
 * The time a service makes its time-based decisions by (a campaign's calling windows, when a retry
 * is due). Real time in production; tests plug in one they move, so they drive time instead of
 * waiting for it. Bookkeeping times (leases, updated_at) stay on the real clock.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
