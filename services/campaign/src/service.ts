import {
  type Clock,
  defineService,
  type ServiceDeps,
  type ServiceHandle,
  STREAMS,
  serveHealth,
  startOutboxRelay,
  systemClock,
} from '@voice/shared';
import { consumeCampaignCallEnded } from './app/call-ended-consumer';
import { CampaignsApp } from './app/campaigns';
import { CampaignControl } from './app/control';
import { Dispatcher } from './app/dispatcher';
import { campaignMetrics } from './app/metrics';
import { numberZoneTable } from './app/number-zone-table';
import { CampaignValidator } from './app/validation';
import { numberZones } from './domain/number-zones';
import { serveCampaigns } from './handlers/campaigns';

export interface CampaignServiceOptions {
  /** Fallback look for due work (scheduled starts, retries); wakes make most dials immediate. */
  pollIntervalMs?: number;
  /** How long an unconfirmed call placement waits before it is re-sent with the same call id. */
  placementLeaseMs?: number;
  /** Age after which a draft (a create whose upload never finished) is deleted. */
  draftMaxAgeMs?: number;
  /**
   * The time calling windows and due contacts (retries, scheduled starts) are judged by: real time
   * unless a test plugs in one it moves.
   */
  clock?: Clock;
}

/**
 * The campaign service: stores campaigns and their contacts, dials them through the call service
 * under each campaign's concurrency cap, records outcomes from CALL_ENDED and publishes progress.
 */
export function createCampaignService(
  deps: ServiceDeps,
  options: CampaignServiceOptions = {},
): ServiceHandle {
  let dispatcher: Dispatcher | undefined;
  const wake = () => dispatcher?.wake();
  const clock = options.clock ?? systemClock;
  // Loaded now, so an install missing the number-to-zone data fails at start, not at a dial.
  const zoneTable = numberZoneTable();
  const campaigns = new CampaignsApp({ sql: deps.sql, bus: deps.bus, onRunnable: wake, clock });
  const control = new CampaignControl({ sql: deps.sql, onRunnable: wake });
  const metrics = deps.metrics && campaignMetrics(deps.metrics, deps.sql, deps.log);
  return defineService({
    name: 'campaign',
    subscriptions: [
      serveHealth(deps, 'campaign'),
      ...serveCampaigns(deps, campaigns, control, new CampaignValidator({ bus: deps.bus })),
      consumeCampaignCallEnded({
        bus: deps.bus,
        sql: deps.sql,
        log: deps.log,
        campaigns,
        onSlotFreed: wake,
        metrics,
      }),
    ],
    background: [
      () =>
        startOutboxRelay({
          sql: deps.sql,
          bookkeepingSql: deps.bookkeepingSql,
          schema: 'campaign',
          bus: deps.bus,
          log: deps.log,
          // Progress events are live events: published, stored in no stream. Lifecycle and
          // exhausted-contact events are durable, for account webhook endpoints.
          streams: [STREAMS.campaignEvents],
        }),
      async () => {
        const running = new Dispatcher({
          sql: deps.sql,
          bus: deps.bus,
          log: deps.log,
          campaigns,
          pollIntervalMs: options.pollIntervalMs ?? 500,
          placementLeaseMs: options.placementLeaseMs ?? 10_000,
          draftMaxAgeMs: options.draftMaxAgeMs ?? 3_600_000,
          metrics,
          clock,
          zonesOfNumber: (e164) => numberZones(zoneTable, e164),
        });
        running.start();
        dispatcher = running;
        return {
          stop: async () => {
            dispatcher = undefined;
            await running.stop();
          },
        };
      },
    ],
  });
}
