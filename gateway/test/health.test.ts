import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../platform/test/support/harness';
import { healthWhen } from '../../platform/test/support/health';

describe.each(infraModes())('GET /v1/health (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  it('is public and reports ok with every component reachable', async () => {
    await healthWhen(t.url, (health) => {
      expect(health.status).toBe('ok');
      for (const name of ['gateway', 'bus', 'database', 'agent', 'call', 'campaign', 'webhook']) {
        expect(health.components[name]?.status).toBe('ok');
      }
    });
  });

  it('reports degraded, naming the component, when a service is stopped', async () => {
    await t.platform.stopService('call');
    await healthWhen(t.url, (health) => {
      expect(health.status).toBe('degraded');
      expect(health.components.call?.status).toBe('unreachable');
      expect(health.components.agent?.status).toBe('ok');
    });
  });
});
