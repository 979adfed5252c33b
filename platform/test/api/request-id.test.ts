import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';

describe.each(infraModes())('request ids across services (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode, { captureLogs: true });
  });
  afterAll(async () => t?.stop());

  it('carries X-Request-Id over the bus onto the log lines of every service it touched', async () => {
    const requestId = `trace-${mode}-${Date.now()}`;
    const res = await api(t.url, 'GET', '/v1/health', { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    // A service may log after the gateway answered (the access line comes after the response).
    await vi.waitFor(
      () => {
        const lines = t.logs.filter((line) => line.request_id === requestId);
        const services = new Set(lines.map((line) => line.service));
        for (const name of ['gateway', 'agent', 'call', 'campaign', 'webhook', 'telephony'])
          expect(services).toContain(name);
        expect(lines.filter((l) => l.service === 'agent').some((l) => l.subject === 'agent.health')).toBe(
          true,
        );
      },
      { timeout: 15_000, interval: 20 },
    );
  });

  it('logs one line per HTTP request: its outcome, with the request and the time it took', async () => {
    const requestId = `one-line-${mode}-${Date.now()}`;
    const res = await api(t.url, 'GET', '/v1/me', { key: t.devKey, headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    const gatewayLines = () =>
      t.logs.filter((line) => line.request_id === requestId && line.service === 'gateway');
    // The line is written once the response is sent, which may be after the client read it.
    await vi.waitFor(() => expect(gatewayLines()).not.toHaveLength(0), { timeout: 15_000, interval: 20 });
    const lines = gatewayLines();
    expect(lines.map((line) => line.msg)).toEqual(['request completed']);
    expect(lines[0]).toMatchObject({ req: { method: 'GET', url: '/v1/me' }, res: { statusCode: 200 } });
    expect(typeof lines[0]!.responseTime).toBe('number');
  });

  it('never writes an API key or the admin token to the logs', async () => {
    await api(t.url, 'GET', '/v1/me', { key: t.devKey });
    await api(t.url, 'GET', '/admin/accounts', { key: t.adminToken });
    await api(t.url, 'GET', '/v1/me', { key: 'vk_wrongwrongwrongwrongwrongwrongwrongwrong00' });
    const text = JSON.stringify(t.logs);
    expect(text).not.toContain(t.devKey!);
    expect(text).not.toContain(t.adminToken!);
    expect(text).not.toContain('vk_wrongwrong');
  });
});
