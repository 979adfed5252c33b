import { DISCOVERY } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

describe.each(infraModes())('edge: envelope, request ids and errors (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    // The default bus timeout (5 s): a shorter one made every request here fail with 504 whenever a
    // loaded machine stalled the platform that long.
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  const admin = () => ({ key: t.adminToken });

  it('wraps success in the envelope, with request_id matching X-Request-Id', async () => {
    const res = await api<Envelope<unknown[]>>(t.url, 'GET', '/v1/industries');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  });

  it('echoes a valid client X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await api<Envelope<unknown>>(t.url, 'GET', '/v1/voices', {
      headers: { 'x-request-id': 'client.req-42_A' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('client.req-42_A');
    expect(echoed.body.request_id).toBe('client.req-42_A');
    const unsafe = await api<Envelope<unknown>>(t.url, 'GET', '/v1/voices', {
      headers: { 'x-request-id': 'bad id<script>' },
    });
    expect(unsafe.headers.get('x-request-id')).not.toBe('bad id<script>');
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    const tooLong = await api(t.url, 'GET', '/v1/voices', { headers: { 'x-request-id': 'a'.repeat(129) } });
    expect(tooLong.headers.get('x-request-id')).not.toBe('a'.repeat(129));
  });

  it('answers unknown routes with a JSON 404 in the error envelope', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'GET', '/v1/nope?x=1');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({ success: false, detail: 'No endpoint GET /v1/nope' });
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers 422 with one {loc,msg,type} per body problem', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: '', plan: 'gold' },
    });
    expect(res.status).toBe(422);
    const detail = res.body.detail as { loc: string[]; msg: string; type: string }[];
    expect(detail.map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'name'],
        ['body', 'plan'],
      ]),
    );
    for (const d of detail) expect(typeof d.msg === 'string' && typeof d.type === 'string').toBe(true);
  });

  it('answers 422 for query and path problems with loc query / path', async () => {
    const query = await api<ErrorEnvelope>(t.url, 'GET', '/admin/accounts?page=0&page_size=101', admin());
    expect(query.status).toBe(422);
    expect((query.body.detail as { loc: string[] }[]).map((d) => d.loc)).toEqual(
      expect.arrayContaining([
        ['query', 'page'],
        ['query', 'page_size'],
      ]),
    );
    const path = await api<ErrorEnvelope>(t.url, 'GET', '/admin/accounts/not-a-uuid', admin());
    expect(path.status).toBe(422);
    expect((path.body.detail as { loc: string[] }[])[0]?.loc).toEqual(['path', 'account_id']);
  });

  it('answers malformed JSON with 422 json_invalid, not a 500', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body'], msg: 'Body is not valid JSON', type: 'json_invalid' }]);
  });

  it('answers a missing body with 422 naming the body', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', admin());
    expect(res.status).toBe(422);
    expect((res.body.detail as { loc: string[] }[])[0]?.loc[0]).toBe('body');
  });

  it('answers a non-JSON body with 415', async () => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.success).toBe(false);
    expect(typeof res.body.detail).toBe('string');
  });

  it('accepts application/*+json bodies as JSON', async () => {
    const res = await api<Envelope<{ name: string }>>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      body: { name: 'Merge Co', plan: 'free' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toBe('Merge Co');
  });

  it('answers a body over 16 MiB with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(16 * 1024 * 1024 + 10), plan: 'free' });
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/admin/accounts', {
      ...admin(),
      rawBody: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
  });

  it('answers 503 when the service behind an endpoint is down, and recovers', async () => {
    await t.platform.stopService('agent');
    const down = await api<ErrorEnvelope>(t.url, 'GET', '/v1/voices');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ success: false, detail: 'A backing service is unavailable' });
  });

  it('answers 504 when a service does not answer in time', async () => {
    // Answers only once the gateway gave up on it, however slow the machine.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = t.platform.infrastructure.bus.respond(
      DISCOVERY.listVoices.subject,
      () => released.then(() => []),
      { queue: 'agent' },
    );
    try {
      const res = await api<ErrorEnvelope>(t.url, 'GET', '/v1/voices');
      expect(res.status).toBe(504);
      expect(res.body.detail).toBe('A backing service did not answer in time');
    } finally {
      release();
      await slow.unsubscribe();
    }
  });

  it('answers 500 without internals when a service fails unexpectedly', async () => {
    const broken = t.platform.infrastructure.bus.respond(
      DISCOVERY.listLanguages.subject,
      async () => {
        throw new Error('relation "agent.secret_table" does not exist at SELECT * FROM agent.secret_table');
      },
      { queue: 'agent' },
    );
    try {
      const res = await api<ErrorEnvelope>(t.url, 'GET', '/v1/voices/languages');
      expect(res.status).toBe(500);
      expect(res.body.detail).toBe('Internal server error');
      expect(res.text).not.toMatch(/secret_table|SELECT|at .*\.ts/);
    } finally {
      await broken.unsubscribe();
    }
  });
});
