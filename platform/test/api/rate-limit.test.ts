import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { type PlatformProcess, spawnPlatform } from '../support/process';
import { windowWithAtLeast } from './rate-limit-support';

async function keyFor(
  t: TestPlatform,
  url: string,
  body: Record<string, unknown>,
): Promise<{ key: string; id: string }> {
  const account = await api<Envelope<{ id: string }>>(url, 'POST', '/admin/accounts', {
    key: t.adminToken,
    body,
  });
  expect(account.status).toBe(201);
  const key = await api<Envelope<{ key: string; id: string }>>(
    url,
    'POST',
    `/admin/accounts/${account.body.data.id}/api-keys`,
    {
      key: t.adminToken,
      body: {},
    },
  );
  expect(key.status).toBe(201);
  return key.body.data;
}

/**
 * `since`: a time (Unix ms) before the request was sent. The reset is the end of the window the
 * request was counted in: after `since` (less a second of clock difference with PostgreSQL), and
 * within a minute of now. Read from `since`, not from the answer's arrival, which on a loaded
 * machine may come a window later.
 */
function expectHeaders(res: { headers: Headers }, limit: number, since: number): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset % 60).toBe(0);
  expect(reset).toBeGreaterThan(since / 1000 - 1);
  expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
}

/**
 * Reads with a key: a route answered by the gateway itself, and one whose bus read runs while its
 * count is in flight (the edge's overlapCharge); both must count, refuse and revoke alike.
 */
const KEY_READS = ['/v1/me', '/v1/agents'];

describe.each(infraModes())('rate limits (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  it('puts X-RateLimit-* on every response: success, public, 401, 404, 422', async () => {
    const { key } = await keyFor(t, t.url, { name: 'Headers', plan: 'pro' });
    const since = Date.now();
    expectHeaders(await api(t.url, 'GET', '/v1/me', { key }), 300, since);
    expectHeaders(await api(t.url, 'GET', '/v1/industries'), 300, since);
    expectHeaders(await api(t.url, 'GET', '/v1/me'), 300, since);
    expectHeaders(await api(t.url, 'GET', '/v1/no-such-route'), 300, since);
    expectHeaders(await api(t.url, 'GET', '/v1/industries/nowhere/agent-types'), 300, since);
    // Reads that ran beside their count: a success, the service's 404, the schema's 422.
    expectHeaders(await api(t.url, 'GET', '/v1/agents', { key }), 300, since);
    const missing = await api(t.url, 'GET', '/v1/agents/00000000-0000-4000-8000-000000000000', { key });
    expect(missing.status).toBe(404);
    expectHeaders(missing, 300, since);
    const invalid = await api(t.url, 'GET', '/v1/agents/not-a-uuid', { key });
    expect(invalid.status).toBe(422);
    expectHeaders(invalid, 300, since);
  });

  it.each(KEY_READS)(
    'allows a free key 60 requests a minute, then 429 with Retry-After (%s)',
    async (path) => {
      await windowWithAtLeast(30);
      const { key } = await keyFor(t, t.url, { name: 'Free', plan: 'free' });
      const since = Date.now();
      for (let i = 1; i <= 60; i++) {
        const res = await api(t.url, 'GET', path, { key });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      }
      const limited = await api<ErrorEnvelope>(t.url, 'GET', path, { key });
      expect(limited.status).toBe(429);
      expectHeaders(limited, 60, since);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body).toMatchObject({ success: false, detail: expect.stringContaining('Rate limit') });
    },
  );

  it('counts each key on its own budget and honours enterprise limits', async () => {
    await windowWithAtLeast(10);
    const small = await keyFor(t, t.url, { name: 'Small', plan: 'enterprise', rate_limit_per_minute: 3 });
    const other = await keyFor(t, t.url, { name: 'Other', plan: 'free' });
    for (let i = 0; i < 3; i++)
      expect((await api(t.url, 'GET', '/v1/me', { key: small.key })).status).toBe(200);
    expect((await api(t.url, 'GET', '/v1/me', { key: small.key })).status).toBe(429);
    const fine = await api(t.url, 'GET', '/v1/me', { key: other.key });
    expect(fine.status).toBe(200);
    expect(fine.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it.each(KEY_READS)(
    'counts concurrent requests of one key exactly: each its own place in the count (%s)',
    async (path) => {
      await windowWithAtLeast(15);
      const { key } = await keyFor(t, t.url, {
        name: 'Burst',
        plan: 'enterprise',
        rate_limit_per_minute: 40,
      });
      const responses = await Promise.all(Array.from({ length: 60 }, () => api(t.url, 'GET', path, { key })));
      const ok = responses.filter((r) => r.status === 200);
      expect(ok).toHaveLength(40);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(20);
      // Batched or not, every admitted request saw a different remaining budget: 39 down to 0.
      const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => b - a);
      expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => 39 - i));
    },
  );

  it("keeps a key's WebSocket counts (plain) and HTTP counts (with the key check) apart when they overlap", async () => {
    await windowWithAtLeast(10);
    const { id } = await keyFor(t, t.url, { name: 'Mixed', plan: 'enterprise', rate_limit_per_minute: 1000 });
    const limiter = t.platform.gateway!.deps.limiter;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0
          ? limiter.hit(`key:${id}`, 1000)
          : limiter
              .hitKey(id, () => 1000, 1000)
              .then((charge) => {
                expect(charge.key).toBe('active');
                return charge.key === 'active' ? charge.state : undefined;
              }),
      ),
    );
    const remaining = results.map((state) => state!.remaining).sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => 999 - i));
  });

  it('charges a weight of places, and refuses an all-or-nothing charge that does not fit without keeping it', async () => {
    await windowWithAtLeast(10);
    const { id } = await keyFor(t, t.url, {
      name: 'Weighted',
      plan: 'enterprise',
      rate_limit_per_minute: 20,
    });
    const limiter = t.platform.gateway!.deps.limiter;
    const bucket = `key:${id}`;
    expect(await limiter.hit(bucket, 20, 15, true)).toMatchObject({ exceeded: false, remaining: 5 });
    expect(await limiter.hit(bucket, 20, 6, true)).toMatchObject({ exceeded: true, remaining: 5 });
    // The refused charge kept nothing: the five left still fit, exactly.
    expect(await limiter.hit(bucket, 20, 5, true)).toMatchObject({ exceeded: false, remaining: 0 });
    expect((await limiter.hit(bucket, 20)).exceeded).toBe(true);
  });

  it('places concurrent weighted charges exactly: the admitted fill the limit, the refused take nothing', async () => {
    await windowWithAtLeast(10);
    const limit = 100;
    const { id } = await keyFor(t, t.url, {
      name: 'Weights',
      plan: 'enterprise',
      rate_limit_per_minute: limit,
    });
    const limiter = t.platform.gateway!.deps.limiter;
    const bucket = `key:${id}`;
    const weights = Array.from({ length: 60 }, (_, i) => 1 + (i % 5));
    const states = await Promise.all(weights.map((w) => limiter.hit(bucket, limit, w, true)));
    const admitted = weights.filter((_, i) => !states[i]!.exceeded);
    const refused = weights.filter((_, i) => states[i]!.exceeded);
    const used = admitted.reduce((a, b) => a + b, 0);
    expect(used).toBeLessThanOrEqual(limit);
    // Every admitted charge holds its own places: the budgets left after them are all different.
    const left = states.filter((s) => !s.exceeded).map((s) => s.remaining);
    expect(new Set(left).size).toBe(left.length);
    expect(Math.min(...left)).toBe(limit - used);
    // No refused charge would have fitted in what is left at the end.
    expect(limit - used).toBeLessThan(Math.min(...refused));
    // And the count holds only the admitted places: a charge of all that is left fits exactly.
    if (limit > used) expect((await limiter.hit(bucket, limit, limit - used, true)).exceeded).toBe(false);
    expect((await limiter.hit(bucket, limit, 1, true)).exceeded).toBe(true);
  });

  it('counts public and unauthenticated requests per client IP at 300 a minute', async () => {
    await windowWithAtLeast(30);
    const first = await api(t.url, 'GET', '/v1/voices');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    expect(first.headers.get('x-ratelimit-limit')).toBe('300');
    const batch = 25;
    let left = remaining;
    while (left > 0) {
      const n = Math.min(batch, left);
      const responses = await Promise.all(Array.from({ length: n }, () => api(t.url, 'GET', '/v1/health')));
      for (const r of responses) expect(r.status).toBe(200);
      left -= n;
    }
    const limited = await api<ErrorEnvelope>(t.url, 'GET', '/v1/voices');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const unauthenticated = await api(t.url, 'GET', '/v1/me', {
      key: 'vk_nonsense_nonsense_nonsense_nonsense_000',
    });
    expect(unauthenticated.status).toBe(429);
  });
});

describe.runIf(infraModes().includes('nats'))('rate limits across two gateway processes on one NATS', () => {
  let t: TestPlatform;
  let gateways: PlatformProcess[] = [];
  beforeAll(async () => {
    t = await startTestPlatform('nats');
    const env = {
      NATS_URL: t.config.NATS_URL,
      DATABASE_URL: t.databaseUrl,
      BUS_PREFIX: t.config.BUS_PREFIX,
      ADMIN_TOKEN: t.adminToken,
      PORT: '0',
    };
    gateways = await Promise.all([spawnPlatform('gateway', env), spawnPlatform('gateway', env)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await t?.stop();
  });

  it.each(KEY_READS)('shares one budget between both instances (%s)', async (path) => {
    await windowWithAtLeast(30);
    const [a, b] = gateways.map((g) => g.url!);
    const { key } = await keyFor(t, a!, { name: 'Shared', plan: 'free' });
    for (let i = 0; i < 60; i++) {
      const res = await api(i % 2 === 0 ? a! : b!, 'GET', path, { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(59 - i));
    }
    expect((await api(a!, 'GET', path, { key })).status).toBe(429);
    expect((await api(b!, 'GET', path, { key })).status).toBe(429);
  });

  it.each(KEY_READS)('revokes a key on every instance at once (%s)', async (path) => {
    const [a, b] = gateways.map((g) => g.url!);
    const { key, id } = await keyFor(t, a!, { name: 'Revoke', plan: 'pro' });
    expect((await api(b!, 'GET', path, { key })).status).toBe(200);
    expect((await api(a!, 'DELETE', `/admin/api-keys/${id}`, { key: t.adminToken })).status).toBe(204);
    const refused = await api<ErrorEnvelope>(b!, 'GET', path, { key });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ success: false, detail: 'This API key has been revoked' });
    expect(refused.body).not.toHaveProperty('data');
  });

  it('reaches services over NATS from a separate gateway process', async () => {
    const res = await api<Envelope<unknown[]>>(gateways[1]!.url!, 'GET', '/v1/industries');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(8);
  });
});
