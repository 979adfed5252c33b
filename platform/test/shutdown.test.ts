import { DISCOVERY } from '@voice/shared';
import { createTestDatabase, infraModes } from '@voice/shared/testing';
import { describe, expect, it, vi } from 'vitest';
import { startTestPlatform } from './support/harness';
import { api, type Envelope } from './support/http';
import { spawnPlatform } from './support/process';

/** A promise with its resolve outside, to hold a responder or to hear that it was reached. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

describe.each(infraModes())('graceful shutdown (%s)', (mode) => {
  it('finishes a request in flight, then stops accepting and closes', async () => {
    const t = await startTestPlatform(mode);
    // Stand in for a slow service: the request is held by the responder until the test lets it
    // go, so it is certainly in flight when stop begins, however slow the machine.
    await t.platform.stopService('agent');
    const reached = signal();
    const release = signal();
    t.platform.infrastructure.bus.respond(
      DISCOVERY.listVoices.subject,
      async () => {
        reached.fire();
        await release.promise;
        return [];
      },
      { queue: 'agent' },
    );
    const inFlight = api<Envelope<unknown[]>>(t.url, 'GET', '/v1/voices');
    await reached.promise;
    let stopDone = false;
    const stopped = t.stop().then(() => {
      stopDone = true;
    });
    // The gateway refuses new work (connection refused, or 503 while it drains) with the request
    // still held: stopping began and did not drop it.
    await vi.waitFor(
      async () => {
        const refused = await fetch(`${t.url}/v1/health`).then(
          (res) => res.status === 503,
          () => true,
        );
        expect(refused).toBe(true);
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(stopDone, 'stop must wait for the request in flight').toBe(false);
    release.fire();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    await stopped;
    await expect(fetch(`${t.url}/v1/health`)).rejects.toThrow();
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
