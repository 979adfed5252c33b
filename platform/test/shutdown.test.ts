import { DISCOVERY } from '@voice/shared';
import { createTestDatabase, infraModes } from '@voice/shared/testing';
import { describe, expect, it } from 'vitest';
import { startTestPlatform } from './support/harness';
import { api, type Envelope } from './support/http';
import { spawnPlatform } from './support/process';

describe.each(infraModes())('graceful shutdown (%s)', (mode) => {
  it('finishes a request in flight, then stops accepting and closes', async () => {
    const t = await startTestPlatform(mode);
    // Stand in for a slow service so a request is certainly in flight when stop begins.
    await t.platform.stopService('agent');
    const slow = t.platform.infrastructure.bus.respond(
      DISCOVERY.listVoices.subject,
      () => new Promise((resolve) => setTimeout(() => resolve([]), 600)),
      { queue: 'agent' },
    );
    const inFlight = api<Envelope<unknown[]>>(t.url, 'GET', '/v1/voices');
    await new Promise((r) => setTimeout(r, 150));
    const stopped = t.stop();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    await stopped;
    await expect(fetch(`${t.url}/v1/health`)).rejects.toThrow();
    void slow;
  });
});

describe('SIGTERM', () => {
  it('exits 0 after a clean stop', async () => {
    const database = await createTestDatabase('embedded');
    try {
      const proc = await spawnPlatform('all', { DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'info' });
      expect((await api(proc.url!, 'GET', '/v1/health')).status).toBe(200);
      const code = await proc.stop('SIGTERM');
      expect(code).toBe(0);
      expect(proc.output()).toContain('stopped cleanly');
    } finally {
      await database.drop();
    }
  });
});
