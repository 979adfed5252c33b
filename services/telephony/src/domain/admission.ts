/**
 * Whether a trunk may take one more call now: its max_concurrent_calls and its calls_per_second.
 * Pure: the caller brings the trunk's load (read under the trunk's row lock, so every instance
 * decides on the same numbers) and the clock.
 *
 * Calls per second are paced evenly (one call every 1000 / cps ms) rather than granted in bursts
 * of `cps` per second: a carrier counting starts in any one-second window then never sees more
 * than it allows, wherever its window begins.
 */
export interface TrunkLimits {
  /** null: no limit of the trunk's own. */
  max_concurrent_calls: number | null;
  /** null: no pacing. */
  calls_per_second: number | null;
}

export interface TrunkLoad {
  /** Calls the trunk carries now. */
  active: number;
  /** Epoch ms before which no call may start through the trunk; null when none is paced yet. */
  nextDialAt: number | null;
}

export type Admission =
  /** Dial now; the trunk's next call may start at `nextDialAt` (null: unpaced). */
  | { outcome: 'admit'; nextDialAt: number | null }
  /** Every slot is taken: try again once one of its calls ended. */
  | { outcome: 'wait'; reason: 'max_concurrent_calls'; retryAt: null }
  /** Too soon after the previous start: try again at `retryAt` (epoch ms). */
  | { outcome: 'wait'; reason: 'calls_per_second'; retryAt: number };

/** Milliseconds between call starts at `callsPerSecond`. */
export function dialSpacingMs(callsPerSecond: number): number {
  return 1000 / callsPerSecond;
}

export function admit(limits: TrunkLimits, load: TrunkLoad, now: number): Admission {
  if (limits.max_concurrent_calls !== null && load.active >= limits.max_concurrent_calls) {
    return { outcome: 'wait', reason: 'max_concurrent_calls', retryAt: null };
  }
  if (limits.calls_per_second === null) return { outcome: 'admit', nextDialAt: null };
  if (load.nextDialAt !== null && now < load.nextDialAt) {
    return { outcome: 'wait', reason: 'calls_per_second', retryAt: load.nextDialAt };
  }
  return { outcome: 'admit', nextDialAt: now + dialSpacingMs(limits.calls_per_second) };
}
