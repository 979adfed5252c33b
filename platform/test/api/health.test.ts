import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, freePort } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from '../../src/embedded-postgres';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { type Health, healthWhen } from '../support/health';
import { api, type Envelope } from '../support/http';

describe.each(infraModes())('GET /v1/health (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.5 } });
  });
  afterAll(async () => t?.stop());

  it('is public and reports ok with every component reachable', async () => {
    await healthWhen(t.url, (health) => {
      expect(health.status).toBe('ok');
      for (const name of [
        'gateway',
        'bus',
        'database',
        'agent',
        'call',
        'campaign',
        'webhook',
        'telephony',
      ]) {
        expect(health.components[name]?.status).toBe('ok');
      }
    });
  });

  it('names the telephony provider calls go through: the simulated carrier, its pace and test numbers', async () => {
    await healthWhen(t.url, (health) =>
      expect(health.telephony).toEqual({
        provider: 'simulated',
        time_scale: 0.5,
        test_numbers: {
          '0001': 'no_answer',
          '0002': 'busy',
          '0003': 'voicemail',
          '0004': 'failed',
          '0005': 'completed',
        },
        other_numbers: 'completed',
      }),
    );
  });

  it('counts the SIP trunks of every account by their keep-alive, naming none', async () => {
    await healthWhen(t.url, (health) =>
      expect(health.trunks).toEqual({ total: 0, reachable: 0, unreachable: 0, unknown: 0 }),
    );
  });

  it('reports degraded, naming the component, when a service is stopped: still 200', async () => {
    await t.platform.stopService('call');
    await healthWhen(t.url, (health) => {
      expect(health.status).toBe('degraded');
      expect(health.components.call?.status).toBe('unreachable');
      expect(health.components.agent?.status).toBe('ok');
      // Nobody to say which provider calls would go through.
      expect(health.telephony).toBeNull();
    });
    // The trunks' keeper, reported on its own.
    await t.platform.stopService('telephony');
    await healthWhen(t.url, (health) => {
      expect(health.components.telephony?.status).toBe('unreachable');
      expect(health.trunks).toBeNull();
      expect(health.components.webhook?.status).toBe('ok');
    });
  });
});

describe('GET /v1/health without the database', () => {
  const log = createLogger({ level: 'silent', name: 'pg' });
  let folder: string;
  let port: number;
  let server: EmbeddedPostgresServer | undefined;
  let t: TestPlatform;
  const startServer = () => startEmbeddedPostgres({ dataDir: join(folder, 'pg'), log, durable: false, port });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'voice-health-'));
    // As root the server runs as the `postgres` user, which must be able to reach the folder.
    await chmod(folder, 0o755);
    port = await freePort();
    server = await startServer();
    t = await startTestPlatform('embedded', { databaseUrl: server.url });
  }, 90_000);
  afterAll(async () => {
    await t?.stop();
    await server?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  it('answers 503 unavailable naming it, while /v1/health/live stays 200; 200 once it is back', async () => {
    await server!.stop();
    server = undefined;
    const res = await api<Envelope<Health> & { detail: string; success: boolean }>(
      t.url,
      'GET',
      '/v1/health',
    );
    expect(res.status).toBe(503);
    expect(res.body.success).toBe(false);
    expect(res.body.detail).toBe('Not serving: the gateway cannot reach its database');
    expect(res.body.data.status).toBe('unavailable');
    expect(res.body.data.components.database?.status).toBe('unreachable');
    expect(res.body.data.components.bus?.status).toBe('ok');

    const live = await api<Envelope<{ status: string }>>(t.url, 'GET', '/v1/health/live');
    expect(live.status).toBe(200);
    expect(live.body.data.status).toBe('ok');

    server = await startServer();
    await vi.waitFor(async () => expect((await api(t.url, 'GET', '/v1/health')).status).toBe(200), {
      timeout: 20_000,
      interval: 100,
    });
  }, 60_000);
});
