import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { healthWhen } from './support/health';
import { api, type Envelope } from './support/http';
import { spawnPlatform } from './support/process';

/** Like a project folder: traversable by the unprivileged user PostgreSQL runs as under root. */
async function dataDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-embedded-'));
  await chmod(dir, 0o755);
  return dir;
}

describe('the embedded default (no NATS_URL, no DATABASE_URL)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('starts its own PostgreSQL, prints a development key, and keeps key and data across a restart', async () => {
    const dataDir = await dataDirectory();
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: 'admin-token-for-embedded-test' };
    const first = await spawnPlatform('all', env, { timeoutMs: 90_000 });
    const key = /Development API key: (\S+)/.exec(first.output())?.[1];
    expect(key).toMatch(/^vk_/);
    const me = await api<Envelope<{ account: { plan: string } }>>(first.url!, 'GET', '/v1/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.data.account.plan).toBe('pro');
    await healthWhen(first.url!, (health) => expect(health.status).toBe('ok'));
    const created = await api<Envelope<{ id: string }>>(first.url!, 'POST', '/admin/accounts', {
      key: env.ADMIN_TOKEN,
      body: { name: 'Survivor', plan: 'free' },
    });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);

    const second = await spawnPlatform('all', env, { timeoutMs: 60_000 });
    try {
      expect(/Development API key: (\S+)/.exec(second.output())?.[1]).toBe(key);
      expect((await api(second.url!, 'GET', '/v1/me', { key })).status).toBe(200);
      const again = await api(second.url!, 'GET', `/admin/accounts/${created.body.data.id}`, {
        key: env.ADMIN_TOKEN,
      });
      expect(again.status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 180_000);

  it('uses VOICE_DEV_API_KEY when it is set, and says in its banner that calls are simulated', async () => {
    const dataDir = await dataDirectory();
    dirs.push(dataDir);
    const chosen = 'my_chosen_development_key_0001';
    const proc = await spawnPlatform(
      'all',
      { DATA_DIR: dataDir, PORT: '0', VOICE_DEV_API_KEY: chosen, SIM_TIME_SCALE: '0.5' },
      { timeoutMs: 90_000 },
    );
    try {
      expect(proc.output()).toContain(`Development API key: ${chosen}`);
      // The banner never lets simulated calls pass for real ones, and says how to pick an outcome.
      expect(proc.output()).toContain(
        'Telephony: SIMULATED carrier, no real phone calls are placed (SIM_TIME_SCALE=0.5)',
      );
      expect(proc.output()).toContain(
        'Test numbers: ending 0001 no_answer, 0002 busy, 0003 voicemail, 0004 failed, 0005 completed (the callee opts out); any other number completed',
      );
      expect((await api(proc.url!, 'GET', '/v1/me', { key: chosen })).status).toBe(200);
    } finally {
      expect(await proc.stop()).toBe(0);
    }
  }, 180_000);
});

describe('configuration errors stop start-up', () => {
  it.each([
    ['PORT', 'not-a-port'],
    ['SIM_TIME_SCALE', '-1'],
    ['NATS_URL', 'http://wrong'],
    ['LOG_LEVEL', 'loud'],
    ['VOICE_DEV_API_KEY', 'short'],
  ])('names %s when it is invalid', async (name, value) => {
    const proc = await spawnPlatform('all', { [name]: value }, { waitForUrl: false });
    const code = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output()).toContain('Invalid configuration');
    expect(proc.output()).toContain(`${name}:`);
  });

  it('refuses a single-service role without NATS_URL and DATABASE_URL', async () => {
    const proc = await spawnPlatform('agent', {}, { waitForUrl: false });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain('set NATS_URL and DATABASE_URL');
  });

  it('refuses an unknown role', async () => {
    const proc = await spawnPlatform('billing', {}, { waitForUrl: false });
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain("Unknown role 'billing'");
  });
});
