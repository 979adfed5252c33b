import type { CallStatus, Metrics } from '@voice/shared';

/** What the call service reports: per instance, so a sum over instances is the platform's. */
export interface CallMetrics {
  /** A call entered `status` here (`initializing` = placed), after the transaction committed. */
  transitioned(status: CallStatus): void;
  /** This instance took over a call from a driver that was gone, or after its own restart. */
  resumed(): void;
}

export function callMetrics(
  metrics: Metrics,
  liveCalls: () => number,
  waitingCalls: () => number,
): CallMetrics {
  const transitions = metrics.counter(
    'calls_transitions_total',
    'Call status changes this instance applied, by the status entered (initializing = a call placed)',
    ['status'],
  );
  const resumed = metrics.counter(
    'calls_resumed_total',
    'Calls this instance took over and resumed (their driver stopped or crashed)',
  );
  metrics.gauge(
    'calls_live',
    'Calls this instance is driving now (not final, carrier session open)',
    [],
    (g) => g.set(liveCalls()),
  );
  metrics.gauge(
    'calls_waiting_to_dial',
    'Calls accepted by this instance that wait for their turn at the carrier (CALL_DIALS_PER_SECOND)',
    [],
    (g) => g.set(waitingCalls()),
  );
  return {
    transitioned: (status) => transitions.inc({ status }),
    resumed: () => resumed.inc(),
  };
}
