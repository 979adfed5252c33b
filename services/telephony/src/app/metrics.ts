import type { Metrics, SipCallEnd } from '@voice/shared';
import type { Admission } from '../domain/admission';
import type { TrunkRouteDecision } from './router';

export interface TelephonyMetrics {
  routed(matched: TrunkRouteDecision['matched'] | 'refused'): void;
  decided(admission: Admission): void;
  ended(end: SipCallEnd): void;
}

/** Per telephony instance: a sum over instances is the platform's. */
export function telephonyMetrics(metrics: Metrics, liveCalls: () => number): TelephonyMetrics {
  metrics.gauge(
    'telephony_live_calls',
    'SIP calls this instance carries now (dialing, ringing or answered)',
    [],
    (g) => g.set(liveCalls()),
  );
  const ended = metrics.counter(
    'telephony_calls_ended_total',
    'SIP calls this instance carried, by how they ended: the call record\u2019s status and call_end_reason',
    ['status', 'reason'],
  );
  const routes = metrics.counter(
    'telephony_routes_total',
    'Calls routed, by how: source_number (a trunk lists the number), default_trunk, simulated, or refused ' +
      '(no trunk and SIMULATED_CARRIER=off)',
    ['matched'],
  );
  const admissions = metrics.counter(
    'telephony_trunk_admissions_total',
    'Admission decisions for calls to a trunk: admit, or wait for max_concurrent_calls or calls_per_second',
    ['outcome'],
  );
  return {
    routed: (matched) => routes.inc({ matched }),
    ended: (end) => ended.inc({ status: end.status, reason: end.call_end_reason }),
    decided: (admission) =>
      admissions.inc({ outcome: admission.outcome === 'admit' ? 'admit' : admission.reason }),
  };
}
