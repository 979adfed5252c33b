import type { CallingWindow } from '@voice/shared/contracts';
import { contactWindowState, recipientZones } from './calling-window';

/** A due contact as its calling window judges it. */
export interface GateCandidate {
  id: string;
  phone_number: string | null;
  /** The value of its `timezone` key (anything a client sent). */
  timezone: unknown;
}

export interface GateDecision {
  /** Inside their window now: dial, in the order given, at most `free`. */
  dial: string[];
  /** Outside it: wait until it opens. */
  wait: { id: string; until: Date }[];
}

/**
 * Which due contacts of a windowed campaign are dialed now and which wait for their window. In
 * order, until `free` are to be dialed: the contacts after that are not judged (they stay due for
 * a later claim). Contacts in the same zones share one judgement.
 */
export function gateByWindow(
  window: CallingWindow,
  candidates: readonly GateCandidate[],
  zonesOfNumber: (e164: string) => readonly string[],
  now: Date,
  free: number,
): GateDecision {
  const decision: GateDecision = { dial: [], wait: [] };
  const judged = new Map<string, ReturnType<typeof contactWindowState>['state']>();
  for (const candidate of candidates) {
    if (decision.dial.length >= free) break;
    const number = candidate.phone_number?.trim() ?? '';
    const recipient = recipientZones(window, candidate.timezone, number ? zonesOfNumber(number) : []);
    const key = recipient.zones.join('&');
    let state = judged.get(key);
    if (!state) {
      state = contactWindowState(window, recipient, now).state;
      judged.set(key, state);
    }
    if (state.open) decision.dial.push(candidate.id);
    else decision.wait.push({ id: candidate.id, until: state.opensAt });
  }
  return decision;
}
