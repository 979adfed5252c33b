import {
  type CallContext,
  HEALTH,
  isAppError,
  SERVICE_NAMES,
  type ServiceName,
  type Sql,
  TelephonyProviderInfo,
  TrunkHealthSummary,
  withDeadline,
} from '@voice/shared';
import { z } from 'zod';
import type { GatewayClient } from './gateway-client';

export const ComponentHealth = z.object({
  status: z.enum(['ok', 'degraded', 'unreachable', 'timeout']),
  latency_ms: z.number().int(),
  detail: z.string().optional(),
});

export const HealthReport = z
  .object({
    /** `unavailable`: without its database or bus the gateway serves nothing (503, set by the route). */
    status: z.enum(['ok', 'degraded', 'unavailable']),
    version: z.string(),
    components: z.object({
      gateway: ComponentHealth,
      bus: ComponentHealth,
      database: ComponentHealth,
      agent: ComponentHealth,
      call: ComponentHealth,
      campaign: ComponentHealth,
      webhook: ComponentHealth,
      telephony: ComponentHealth.describe(
        'The telephony service, which keeps the SIP trunks and carries SIP calls and their audio',
      ),
    }),
    trunks: TrunkHealthSummary.nullable().describe(
      'SIP trunks of every account by their latest keep-alive (SIP OPTIONS, about every 30 s); null when no ' +
        'telephony service answers. Each trunk\u2019s own result is on the trunk (GET /v1/sip-trunks/{trunk_id})',
    ),
    telephony: TelephonyProviderInfo.nullable().describe(
      'The telephony provider the call service dials through, as it reports itself; null when no call ' +
        'service answers. `simulated`: calls are simulated, no real telephone network is dialed, and the ' +
        'dialed number\u2019s last four digits pick the outcome (test_numbers)',
    ),
  })
  .meta({ id: 'Health' });
export type HealthReport = z.infer<typeof HealthReport>;
type ComponentHealth = z.infer<typeof ComponentHealth>;

/** Short: a health check that waits for the full request timeout would itself look down. */
const PROBE_TIMEOUT_MS = 1500;

async function timed(probe: () => Promise<ComponentHealth['status']>): Promise<ComponentHealth> {
  const started = performance.now();
  try {
    const status = await probe();
    return { status, latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    const code = isAppError(error) ? error.code : 'INTERNAL';
    return {
      status: code === 'SERVICE_TIMEOUT' ? 'timeout' : 'unreachable',
      latency_ms: Math.round(performance.now() - started),
      detail: code === 'SERVICE_TIMEOUT' ? 'did not answer in time' : 'no instance answering',
    };
  }
}

/** The gateway's own link to the bus, without a round trip: a disconnected bus explains every timeout. */
function busHealth(client: GatewayClient): ComponentHealth {
  const state = client.bus.status?.() ?? 'connected';
  if (state === 'connected') return { status: 'ok', latency_ms: 0 };
  return { status: 'unreachable', latency_ms: 0, detail: `bus ${state}` };
}

/** Asks every service over the bus, and the gateway's own database, in parallel. */
export async function checkHealth(
  client: GatewayClient,
  sql: Sql,
  ctx: CallContext,
  version: string,
): Promise<HealthReport> {
  let telephony: TelephonyProviderInfo | null = null;
  let trunks: TrunkHealthSummary | null = null;
  const probeService = (name: ServiceName) =>
    timed(async () => {
      const reply = await client.call(HEALTH[name], {}, ctx, { timeoutMs: PROBE_TIMEOUT_MS });
      telephony = reply.telephony ?? telephony;
      trunks = reply.trunks ?? trunks;
      return reply.status;
    });
  const [database, ...services] = await Promise.all([
    timed(async () => {
      await withDeadline(sql`SELECT 1`, PROBE_TIMEOUT_MS, 'database health probe');
      return 'ok';
    }),
    ...SERVICE_NAMES.map(probeService),
  ]);
  const byName = Object.fromEntries(SERVICE_NAMES.map((name, i) => [name, services[i]!])) as Record<
    ServiceName,
    ComponentHealth
  >;
  const components = {
    gateway: { status: 'ok' as const, latency_ms: 0 },
    bus: busHealth(client),
    database,
    ...byName,
  };
  const allOk = Object.values(components).every((c) => c.status === 'ok');
  return { status: allOk ? 'ok' : 'degraded', version, components, trunks, telephony };
}
