import { requireScope } from '@voice/gateway';
import { infraModes } from '@voice/shared/testing';
import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

interface CreatedKey {
  id: string;
  key: string;
  scopes: string[];
}

/** A route guarded like every scoped /v1 route, so the 403 path is exercised through the real edge. */
const scopedProbe: FastifyPluginAsync = async (app) => {
  app.get('/v1/test/calls-write', { config: { auth: requireScope('calls:write') } }, async () => ({
    ok: true,
  }));
};

describe.each(infraModes())('authentication and API keys (%s)', (mode) => {
  let t: TestPlatform;
  let accountId: string;
  const admin = () => ({ key: t.adminToken });

  async function createKey(body: Record<string, unknown> = {}): Promise<CreatedKey> {
    const res = await api<Envelope<CreatedKey>>(t.url, 'POST', `/admin/accounts/${accountId}/api-keys`, {
      ...admin(),
      body,
    });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { surfaces: [scopedProbe] });
    const res = await api<Envelope<{ id: string }>>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'Acme', plan: 'pro' },
    });
    expect(res.status).toBe(201);
    accountId = res.body.data.id;
  });
  afterAll(async () => t?.stop());

  it('answers a missing key with 401, a string detail and WWW-Authenticate: Bearer', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'GET', '/v1/me');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.body).toMatchObject({ success: false, detail: expect.stringContaining('Missing API key') });
  });

  it('answers malformed and unknown keys with 401', async () => {
    const malformed = await api<ErrorEnvelope>(t.url, 'GET', '/v1/me', {
      headers: { authorization: 'Basic abc' },
    });
    expect(malformed.status).toBe(401);
    expect(malformed.body.detail).toContain('Malformed');
    const unknown = await api<ErrorEnvelope>(t.url, 'GET', '/v1/me', {
      key: 'vk_thisKeyDoesNotExist0000000000000000000000',
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe('Invalid API key');
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('authenticates a key shown once, and never shows it again', async () => {
    const created = await createKey({ name: 'server' });
    expect(created.key).toMatch(/^vk_[A-Za-z0-9_-]{43}$/);
    const me = await api<Envelope<{ account: { id: string; plan: string; rate_limit_per_minute: number } }>>(
      t.url,
      'GET',
      '/v1/me',
      { key: created.key },
    );
    expect(me.status).toBe(200);
    expect(me.body.data.account).toMatchObject({ id: accountId, plan: 'pro', rate_limit_per_minute: 300 });
    const list = await api(t.url, 'GET', `/admin/accounts/${accountId}/api-keys`, admin());
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.key);
    expect(list.text).toContain(created.key.slice(0, 10));
  });

  it('stores keys only as hashes', async () => {
    const created = await createKey();
    const postgres = (await import('postgres')).default;
    const sql = postgres(t.databaseUrl, { max: 1 });
    try {
      const rows = await sql`SELECT * FROM gateway.api_keys WHERE id = ${created.id}`;
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(created.key.slice(10));
    } finally {
      await sql.end();
    }
  });

  it('refuses a revoked key at once', async () => {
    const created = await createKey();
    expect((await api(t.url, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const revoke = await api(t.url, 'DELETE', `/admin/api-keys/${created.id}`, admin());
    expect(revoke.status).toBe(204);
    const after = await api<ErrorEnvelope>(t.url, 'GET', '/v1/me', { key: created.key });
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('This API key has been revoked');
  });

  it("refuses a key revoked behind this instance's back (another instance, the database) on its next request", async () => {
    const created = await createKey();
    // Recognised, cached and confirmed a few times over.
    for (let i = 0; i < 3; i++)
      expect((await api(t.url, 'GET', '/v1/me', { key: created.key })).status).toBe(200);
    const postgres = (await import('postgres')).default;
    const sql = postgres(t.databaseUrl, { max: 1 });
    try {
      await sql`UPDATE gateway.api_keys SET revoked_at = now() WHERE id = ${created.id}`;
    } finally {
      await sql.end();
    }
    const after = await api<ErrorEnvelope>(t.url, 'GET', '/v1/me', { key: created.key });
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('This API key has been revoked');
    // Refused like any bad key: charged to the client IP, not to the key.
    expect(after.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('answers 403 when the key lacks the scope, and passes with it', async () => {
    const readOnly = await createKey({ scopes: ['calls:read', 'agents:read'] });
    const refused = await api<ErrorEnvelope>(t.url, 'GET', '/v1/test/calls-write', { key: readOnly.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      detail: 'This API key lacks the calls:write scope',
    });
    const writer = await createKey({ scopes: ['calls:write'] });
    expect((await api(t.url, 'GET', '/v1/test/calls-write', { key: writer.key })).status).toBe(200);
    const full = await createKey();
    expect(full.scopes).toEqual([
      'agents:read',
      'agents:write',
      'calls:read',
      'calls:write',
      'campaigns:read',
      'campaigns:write',
      'trunks:read',
      'trunks:write',
    ]);
    expect((await api(t.url, 'GET', '/v1/test/calls-write', { key: full.key })).status).toBe(200);
  });

  it('refuses unknown scopes with 422', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', `/admin/accounts/${accountId}/api-keys`, {
      ...admin(),
      body: { scopes: ['calls:delete'] },
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as { loc: (string | number)[] }[])[0]?.loc).toEqual(['body', 'scopes', 0]);
  });

  it('guards the admin API with ADMIN_TOKEN', async () => {
    expect((await api(t.url, 'GET', '/admin/accounts')).status).toBe(401);
    expect((await api(t.url, 'GET', '/admin/accounts', { key: 'not-the-admin-token' })).status).toBe(401);
    const key = await createKey();
    expect((await api(t.url, 'GET', '/admin/accounts', { key: key.key })).status).toBe(401);
    expect((await api(t.url, 'GET', '/admin/accounts', admin())).status).toBe(200);
  });

  it('needs rate_limit_per_minute for enterprise accounts and applies it', async () => {
    const missing = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'Big', plan: 'enterprise' },
    });
    expect(missing.status).toBe(422);
    expect((missing.body.detail as { loc: string[] }[])[0]?.loc).toEqual(['body', 'rate_limit_per_minute']);
    const ok = await api<Envelope<{ rate_limit_per_minute: number; plan: string }>>(
      t.url,
      'POST',
      '/admin/accounts',
      {
        ...admin(),
        body: { name: 'Big', plan: 'enterprise', rate_limit_per_minute: 5000 },
      },
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ plan: 'enterprise', rate_limit_per_minute: 5000 });
  });

  it('answers 404 for unknown accounts and keys', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await api(t.url, 'GET', `/admin/accounts/${id}`, admin())).status).toBe(404);
    expect(
      (await api(t.url, 'POST', `/admin/accounts/${id}/api-keys`, { ...admin(), body: {} })).status,
    ).toBe(404);
    expect((await api(t.url, 'DELETE', `/admin/api-keys/${id}`, admin())).status).toBe(404);
  });

  it('creates a development account and key in the embedded default', async () => {
    expect(t.devKey).toBeTruthy();
    const me = await api<Envelope<{ account: { plan: string } }>>(t.url, 'GET', '/v1/me', { key: t.devKey });
    expect(me.status).toBe(200);
    expect(me.body.data.account.plan).toBe('pro');
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform('embedded', { withoutAdmin: true });
  });
  afterAll(async () => t?.stop());

  it('answers 404 on every admin path', async () => {
    for (const [method, path] of [
      ['GET', '/admin/accounts'],
      ['POST', '/admin/accounts'],
      ['DELETE', '/admin/api-keys/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const res = await api<ErrorEnvelope>(t.url, method, path, { key: 'anything-at-all' });
      expect(res.status).toBe(404);
      expect(res.body.success).toBe(false);
    }
  });
});
