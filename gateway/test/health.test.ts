import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../platform/test/support/harness';
import { api, type Envelope } from '../../platform/test/support/http';

interface Health {
  status: string;
  components: Record<string, { status: string; latency_ms: number }>;
  telephony: Record<string, unknown> | null;
}

describe.each(infraModes())('GET /v1/health (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.5 } });
  });
  afterAll(async () => t?.stop());

  it('is public and reports ok with every component reachable', async () => {
    const res = await api<Envelope<Health>>(t.url, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('ok');
    for (const name of ['gateway', 'bus', 'database', 'agent', 'call', 'campaign', 'webhook']) {
      expect(res.body.data.components[name]?.status).toBe('ok');
    }
  });

  it('names the telephony provider calls go through: the simulated carrier, its pace and test numbers', async () => {
    const res = await api<Envelope<Health>>(t.url, 'GET', '/v1/health');
    expect(res.body.data.telephony).toEqual({
      provider: 'simulated',
      time_scale: 0.5,
      test_numbers: { '0001': 'no_answer', '0002': 'busy', '0003': 'voicemail', '0004': 'failed' },
      other_numbers: 'completed',
    });
  });

  it('reports degraded, naming the component, when a service is stopped', async () => {
    await t.platform.stopService('call');
    const res = await api<Envelope<Health>>(t.url, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('degraded');
    expect(res.body.data.components.call?.status).toBe('unreachable');
    expect(res.body.data.components.agent?.status).toBe('ok');
    // Nobody to say which provider calls would go through.
    expect(res.body.data.telephony).toBeNull();
  });
});
