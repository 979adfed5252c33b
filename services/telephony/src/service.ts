import { randomUUID } from 'node:crypto';
import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';
import { TrunkAdmissions } from './app/admissions';
import { telephonyMetrics } from './app/metrics';
import { TrunkRouter } from './app/router';
import { TrunksApp } from './app/trunks';
import { serveTrunks } from './handlers/trunks';

/** What the telephony service's parts need of each other; the SIP dial path builds on these. */
export interface TelephonyServiceParts {
  trunks: TrunksApp;
  router: TrunkRouter;
  admissions: TrunkAdmissions;
}

/**
 * The telephony service: the accounts' SIP trunks, routing a call to a trunk (or the simulated
 * carrier), and per-trunk admission. SIP signalling and RTP media (src/sip, src/media) plug in here.
 */
export function createTelephonyService(deps: ServiceDeps): ServiceHandle & { parts: TelephonyServiceParts } {
  const metrics = deps.metrics ? telephonyMetrics(deps.metrics) : undefined;
  const instance = `telephony-${randomUUID().slice(0, 8)}`;
  const trunks = new TrunksApp(deps.sql);
  const router = new TrunkRouter(deps.sql, deps.config.SIMULATED_CARRIER, (m) => metrics?.routed(m));
  const admissions = new TrunkAdmissions(deps.sql, instance, (a) => metrics?.decided(a));
  const handle = defineService({
    name: 'telephony',
    subscriptions: [serveHealth(deps, 'telephony'), ...serveTrunks(deps, trunks, router)],
    background: [
      async () => ({
        // The calls this instance carried end with it: their trunks' slots are free again.
        stop: async () => {
          await admissions.releaseAll().catch((error: unknown) => {
            deps.log.warn({ err: error }, 'telephony: could not release this instance\u2019s trunk slots');
          });
        },
      }),
    ],
  });
  return Object.assign(handle, { parts: { trunks, router, admissions } });
}
