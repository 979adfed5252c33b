import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope, rawRequest } from '../support/http';

type Issues = { loc: (string | number)[]; msg: string; type: string }[];

function expectEnvelopeHeaders(headers: { get(name: string): string | null } | Record<string, string>): void {
  const get = (name: string) =>
    'get' in headers && typeof headers.get === 'function'
      ? headers.get(name)
      : (headers as Record<string, string>)[name];
  expect(get('x-request-id')).toMatch(/^[A-Za-z0-9._-]+$/);
  expect(get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(get('x-ratelimit-reset')).toMatch(/^\d+$/);
}

describe.each(infraModes())('edge hardening (%s)', (mode) => {
  let t: TestPlatform;
  const admin = () => ({ key: t.adminToken });
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  it('refuses NUL characters with a 422 naming the field, not a 500', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'a\u0000b', plan: 'free' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'name'], msg: expect.stringContaining('NUL'), type: 'string_nul' },
    ]);
  });

  it('refuses JSON nested deeper than 32 levels', async () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: deep,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as Issues)[0]?.type).toBe('json_too_deep');
  });

  it('refuses prototype-poisoning keys but accepts an ordinary "constructor" value', async () => {
    const poisoned = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: '{"name":"x","plan":"free","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(poisoned.status).toBe(422);
    expect(poisoned.body.detail).toEqual([
      { loc: ['body', '__proto__'], msg: expect.any(String), type: 'forbidden_key' },
    ]);
    const plain = await api(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'x', plan: 'free', constructor: 'Bob' },
    });
    expect(plain.status).toBe(201);
  });

  it('answers a badly encoded URL with 400 in the envelope, with request id and rate-limit headers', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'GET', '/v1/industries/%ZZ/agent-types');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, detail: expect.any(String) });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expectEnvelopeHeaders(res.headers);
  });

  it('answers an oversized path parameter with 414 in the envelope, without echoing it', async () => {
    const long = 'x'.repeat(1200);
    const res = await api<ErrorEnvelope>(t.url, 'GET', `/v1/industries/${long}/agent-types`);
    expect(res.status).toBe(414);
    expect(res.body.success).toBe(false);
    expect(res.text).not.toContain(long);
    expectEnvelopeHeaders(res.headers);
  });

  it('answers oversized headers (431) and unknown methods (405) in the envelope', async () => {
    const big = await rawRequest(
      t.url,
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body)).toMatchObject({ success: false, detail: 'Request headers too large' });
    expectEnvelopeHeaders(big.headers);
    const method = await rawRequest(t.url, 'FROB /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(method.status).toBe(405);
    expect(JSON.parse(method.body).success).toBe(false);
    expectEnvelopeHeaders(method.headers);
  });

  it('refuses two Authorization headers instead of picking one', async () => {
    const res = await rawRequest(
      t.url,
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.devKey}\r\nAuthorization: Bearer other\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).detail).toBe('Send exactly one Authorization header');
  });

  it('keeps a client 4xx a 4xx: unsatisfiable ranges and path tricks on /docs', async () => {
    const range = await api<ErrorEnvelope>(t.url, 'GET', '/docs/static/swagger-ui.css', {
      headers: { range: 'bytes=99999999-' },
    });
    expect(range.status).toBe(416);
    expect(range.body.success).toBe(false);
    const traversal = await api<ErrorEnvelope>(t.url, 'GET', '/docs/static/..%2f..%2fpackage.json');
    expect(traversal.status).toBeGreaterThanOrEqual(400);
    expect(traversal.status).toBeLessThan(500);
    expect(traversal.text).not.toContain('scope');
    expect(traversal.text).not.toContain('"dependencies"');
  });

  it('serves only the GraphiQL assets it has: inherited names are 404, not a 500', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nope.js']) {
      const res = await api<ErrorEnvelope>(t.url, 'GET', `/graphql/assets/${name}`);
      expect(res.status, name).toBe(404);
      expect(res.body.detail, name).toBe('No such GraphiQL asset');
    }
    expect((await api(t.url, 'GET', '/graphql/assets/graphiql.css')).status).toBe(200);
  });

  it('answers unknown routes 404 before reading a body', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/v1/voices', {
      rawBody: Buffer.alloc(17 * 1024 * 1024, 0x20),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(404);
    expect(res.body.detail).toBe('No endpoint POST /v1/voices');
  });

  it('puts rate-limit headers on 304, 413, 415, 429 and /docs answers too', async () => {
    const first = await api(t.url, 'GET', '/v1/voices');
    const cached = await api(t.url, 'GET', '/v1/voices', {
      headers: { 'if-none-match': first.headers.get('etag')! },
    });
    expect(cached.status).toBe(304);
    expectEnvelopeHeaders(cached.headers);
    const tooLarge = await api(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: JSON.stringify({ name: 'x'.repeat(16 * 1024 * 1024 + 1) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(tooLarge.status).toBe(413);
    expectEnvelopeHeaders(tooLarge.headers);
    const wrongType = await api(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: 'x',
      headers: { 'content-type': 'text/csv' },
    });
    expect(wrongType.status).toBe(415);
    expectEnvelopeHeaders(wrongType.headers);
    expectEnvelopeHeaders((await api(t.url, 'GET', '/docs/')).headers);
  });

  it('takes page numbers as plain digits only', async () => {
    for (const query of [
      'page=0x10',
      'page=1e3',
      'page=',
      'page=1&page=2',
      'page_size=-1',
      'page_size=2.5',
    ]) {
      const res = await api<ErrorEnvelope>(t.url, 'GET', `/admin/accounts?${query}`, admin());
      expect(res.status, query).toBe(422);
      expect((res.body.detail as Issues)[0]?.loc[0]).toBe('query');
    }
    expect((await api(t.url, 'GET', '/admin/accounts?page=2&page_size=1', admin())).status).toBe(200);
  });

  it('finds industries by id or name in any case', async () => {
    for (const industry of ['real_estate', 'REAL_ESTATE', 'Real%20Estate', 'REAL%20ESTATE']) {
      expect((await api(t.url, 'GET', `/v1/industries/${industry}/agent-types`)).status, industry).toBe(200);
    }
  });

  it('creates a full-access key when the body is omitted, and pages keys past the end with the right total', async () => {
    const account = await api<Envelope<{ id: string }>>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'Keys', plan: 'pro' },
    });
    const created = await api<Envelope<{ scopes: string[] }>>(
      t.url,
      'POST',
      `/admin/accounts/${account.body.data.id}/api-keys`,
      admin(),
    );
    expect(created.status).toBe(201);
    // Every scope, the trunk scopes included.
    expect(created.body.data.scopes).toHaveLength(8);
    expect(created.body.data.scopes).toEqual(expect.arrayContaining(['trunks:read', 'trunks:write']));
    await api(t.url, 'POST', `/admin/accounts/${account.body.data.id}/api-keys`, {
      ...admin(),
      body: { name: 'second' },
    });
    const past = await api<Envelope<{ items: unknown[]; total: number; has_more: boolean }>>(
      t.url,
      'GET',
      `/admin/accounts/${account.body.data.id}/api-keys?page=9`,
      admin(),
    );
    expect(past.body.data).toMatchObject({ items: [], total: 2, has_more: false });
  });

  it('lets only enterprise accounts set their own rate limit', async () => {
    for (const plan of ['free', 'pro']) {
      const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
        ...admin(),
        body: { name: 'Greedy', plan, rate_limit_per_minute: 1_000_000 },
      });
      expect(res.status, plan).toBe(422);
      expect((res.body.detail as Issues)[0]?.loc).toEqual(['body', 'rate_limit_per_minute']);
    }
  });
});

describe('client addresses behind a trusted proxy (TRUST_PROXY=1)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform('embedded', { config: { TRUST_PROXY: 1 } });
  });
  afterAll(async () => t?.stop());

  it('uses the address the proxy saw, not one the client wrote', async () => {
    const remaining = async (xff: string) =>
      Number(
        (await api(t.url, 'GET', '/v1/health', { headers: { 'x-forwarded-for': xff } })).headers.get(
          'x-ratelimit-remaining',
        ),
      );
    const a = await remaining('6.6.6.1, 203.0.113.9');
    const b = await remaining('6.6.6.2, 203.0.113.9');
    expect(b).toBe(a - 1);
    const other = await remaining('6.6.6.3, 203.0.113.10');
    expect(other).toBe(299);
  });
});
