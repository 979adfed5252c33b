import { expect, vi } from 'vitest';
import { api, type Envelope } from './http';

export interface Health {
  status: string;
  components: Record<string, { status: string; latency_ms: number }>;
  /** The telephony provider calls go through; null when no call service answered. */
  telephony?: Record<string, unknown> | null;
  /** Every account's SIP trunks counted by their keep-alive; null when no telephony service answered. */
  trunks?: Record<string, number> | null;
}

/**
 * GET /v1/health until `check` passes, and that report. Health probes give up after a second or
 * so: on a loaded machine a healthy component may miss that once, so a test waits for the report
 * it expects (a component that is really down never gives it).
 */
export async function healthWhen(baseUrl: string, check: (health: Health) => void): Promise<Health> {
  return vi.waitFor(
    async () => {
      const res = await api<Envelope<Health>>(baseUrl, 'GET', '/v1/health');
      expect(res.status).toBe(200);
      check(res.body.data);
      return res.body.data;
    },
    { timeout: 30_000, interval: 100 },
  );
}
