/**
 * Which carrier a call goes out through (README, "Connecting a SIP trunk"): the trunk whose
 * numbers hold the call's source number, else the account's default trunk, else the simulated
 * carrier, which SIMULATED_CARRIER=off turns into a refusal. Pure: the caller brings the
 * account's candidate trunks.
 */
export interface RouteCandidate {
  /** Whether the trunk lists the call's source number. */
  by_number: boolean;
  is_default: boolean;
}

export type RouteDecision<T> =
  | { carrier: 'sip'; matched: 'source_number' | 'default_trunk'; trunk: T }
  | { carrier: 'simulated'; matched: 'simulated'; trunk: null }
  | { carrier: 'none' };

export function chooseRoute<T extends RouteCandidate>(
  candidates: readonly T[],
  simulatedCarrier: 'on' | 'off',
): RouteDecision<T> {
  const byNumber = candidates.find((c) => c.by_number);
  if (byNumber) return { carrier: 'sip', matched: 'source_number', trunk: byNumber };
  const byDefault = candidates.find((c) => c.is_default);
  if (byDefault) return { carrier: 'sip', matched: 'default_trunk', trunk: byDefault };
  return simulatedCarrier === 'on'
    ? { carrier: 'simulated', matched: 'simulated', trunk: null }
    : { carrier: 'none' };
}
