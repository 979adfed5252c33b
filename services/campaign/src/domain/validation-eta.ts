import type { CallingWindow } from '@voice/shared/contracts';
import { contactWindowState } from './calling-window';

// How long a campaign would take, as a fluid model: `cap` calls at once, each `avgCallSeconds`
// long, so cap / avgCallSeconds contacts a second while any contact may be called. With a window,
// time is stepped from one window edge (of any zone group) to the next: during each step the
// capacity goes to the groups whose window is open, shared in proportion to what each has left
// (as dialing in list order over a mixed list would). Retries are not counted. Pure.

export interface EtaGroup {
  /** The zones the group's window is read in (one zone, or a number's several). */
  zones: readonly string[];
  contacts: number;
}

export interface EtaInput {
  groups: readonly EtaGroup[];
  window: CallingWindow | undefined;
  cap: number;
  avgCallSeconds: number;
  start: Date;
}

/** Window edges stepped through before giving up (a year of daily edges in ~100 zone groups). */
const MAX_STEPS = 100_000;
/** Answers past this are null: not an estimate anyone can plan on. */
const HORIZON_SECONDS = 5 * 366 * 86_400;
/** Contacts left below this count as done (the fluid model's rounding). */
const EPSILON = 1e-9;

/** Seconds from `start` until the last contact's call ends; null past the horizon. */
export function etaSeconds(input: EtaInput): number | null {
  const total = input.groups.reduce((sum, group) => sum + group.contacts, 0);
  if (total === 0) return 0;
  const rate = input.cap / input.avgCallSeconds;
  if (!input.window) return finite(total / rate);
  return steppedEta(input, input.window, rate);
}

function finite(seconds: number): number | null {
  return seconds <= HORIZON_SECONDS ? Math.ceil(seconds) : null;
}

function steppedEta(input: EtaInput, window: CallingWindow, rate: number): number | null {
  const left = input.groups.map((group) => group.contacts);
  // Each group's window state, kept until its own next edge: the window math (time-zone
  // arithmetic) runs once per edge of a group, not once per step of every group.
  const states: ({ open: boolean; until: number } | undefined)[] = input.groups.map(() => undefined);
  const stateAt = (index: number, at: number) => {
    const known = states[index];
    if (known && known.until > at) return known;
    const group = input.groups[index]!;
    const { state } = contactWindowState(window, { zones: group.zones, source: 'number' }, new Date(at));
    const fresh = { open: state.open, until: (state.open ? state.closesAt : state.opensAt).getTime() };
    states[index] = fresh;
    return fresh;
  };
  const start = input.start.getTime();
  let at = start;
  for (let step = 0; step < MAX_STEPS && (at - start) / 1000 <= HORIZON_SECONDS; step += 1) {
    let next = Number.POSITIVE_INFINITY;
    const open: number[] = [];
    input.groups.forEach((_group, index) => {
      if ((left[index] ?? 0) <= EPSILON) return;
      const state = stateAt(index, at);
      if (state.open) open.push(index);
      next = Math.min(next, state.until);
    });
    if (next === Number.POSITIVE_INFINITY) return finite((at - start) / 1000);
    const openLeft = open.reduce((sum, index) => sum + (left[index] ?? 0), 0);
    const capacity = ((next - at) / 1000) * rate;
    if (openLeft > 0 && openLeft <= capacity) {
      // The open groups finish inside this step; the others wait for their window.
      for (const index of open) left[index] = 0;
      at += (openLeft / rate) * 1000;
      continue;
    }
    for (const index of open) left[index] = (left[index] ?? 0) * (1 - capacity / openLeft);
    at = next;
  }
  return null;
}
