import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../platform/test/support/harness';
import { api, type Envelope } from '../../platform/test/support/http';

interface Health {
  status: string;
  components: Record<string, { status: string; latency_ms: number }>;
}

describe.each(infraModes())('GET /v1/health (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
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

  it('reports degraded, naming the component, when a service is stopped', async () => {
    await t.platform.stopService('call');
    const res = await api<Envelope<Health>>(t.url, 'GET', '/v1/health');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('degraded');
    expect(res.body.data.components.call?.status).toBe('unreachable');
    expect(res.body.data.components.agent?.status).toBe('ok');
  });
});
