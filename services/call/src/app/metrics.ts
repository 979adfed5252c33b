import type { CallStatus, Metrics } from '@voice/shared';

/** What the call service reports: per instance, so a sum over instances is the platform's. */
export interface CallMetrics {
  /** A call entered `status` here (`initializing` = placed), after the transaction committed. */
  transitioned(status: CallStatus): void;
  /** This instance took over a call from a driver that was gone, or after its own restart. */
  resumed(): void;
  /** Calls of a dial batch not dialed because their account was at its concurrent-call limit. */
  held(calls: number): void;
}

/** This instance's state, read at scrape time. */
export interface CallGauges {
  live: () => number;
  waiting: () => number;
  liveByAccount: () => Map<string, number>;
  waitingByAccount: () => Map<string, number>;
  /** Accounts whose waiting calls are held at their limit. */
  heldAccounts: () => number;
}

/**
 * Accounts reported by name in the per-account gauges, the busiest first: a label per account
 * would grow with the number of accounts, so each scrape names at most this many per gauge (per
 * instance); the totals count everyone.
 */
export const TOP_ACCOUNTS = 10;

function busiest(counts: Map<string, number>): [string, number][] {
  return [...counts]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_ACCOUNTS);
}

export function callMetrics(metrics: Metrics, gauges: CallGauges): CallMetrics {
  const transitions = metrics.counter(
    'calls_transitions_total',
    'Call status changes this instance applied, by the status entered (initializing = a call placed)',
    ['status'],
  );
  const resumed = metrics.counter(
    'calls_resumed_total',
    'Calls this instance took over and resumed (their driver stopped or crashed)',
  );
  const held = metrics.counter(
    'calls_dial_held_total',
    'Dial turns of calls left waiting because their account had max_concurrent_calls calls dialed',
  );
  metrics.gauge(
    'calls_live',
    'Calls this instance is driving now (not final, carrier session open)',
    [],
    (g) => g.set(gauges.live()),
  );
  metrics.gauge(
    'calls_waiting_to_dial',
    'Calls accepted by this instance that wait for their turn at the carrier (CALL_DIALS_PER_SECOND) or for a slot of their account',
    [],
    (g) => g.set(gauges.waiting()),
  );
  metrics.gauge(
    'calls_accounts_held',
    'Accounts whose calls wait in this instance’s dial queue because the account is at max_concurrent_calls',
    [],
    (g) => g.set(gauges.heldAccounts()),
  );
  const perAccount = (name: string, help: string, counts: () => Map<string, number>) =>
    metrics.gauge(
      name,
      `${help} (the ${TOP_ACCOUNTS} busiest accounts on this instance)`,
      ['account_id'],
      (g) => {
        g.reset();
        for (const [account, n] of busiest(counts())) g.set({ account_id: account }, n);
      },
    );
  perAccount('calls_account_live', 'Calls this instance drives now, by account', gauges.liveByAccount);
  perAccount(
    'calls_account_waiting',
    'Calls waiting in this instance’s dial queue, by account',
    gauges.waitingByAccount,
  );
  return {
    transitioned: (status) => transitions.inc({ status }),
    resumed: () => resumed.inc(),
    held: (calls) => held.inc(calls),
  };
}
