import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_NOT_ALLOWED_ERROR, WebhookSender } from '../src/app/sender';

describe('WebhookSender', () => {
  let server: Server;
  let base: string;
  let seen = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen += 1;
      if (req.url === '/redirect') {
        res.writeHead(302, { Location: '/ok' }).end();
      } else if (req.url === '/big') {
        res.writeHead(200);
        res.end('x'.repeat(1024 * 1024));
      } else if (req.url === '/hang') {
        // never answers
      } else {
        res.writeHead(204).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = (path: string) => ({
    url: `${base}${path}`,
    body: Buffer.from('{}'),
    headers: { 'Content-Type': 'application/json' },
  });

  it('counts a 2xx as success and a 3xx as failure (redirects not followed)', async () => {
    const sender = new WebhookSender({ allowPrivate: true });
    expect(await sender.send(request('/ok'))).toEqual({ ok: true, statusCode: 204 });
    const before = seen;
    expect(await sender.send(request('/redirect'))).toMatchObject({ ok: false, statusCode: 302 });
    expect(seen - before).toBe(1);
    expect(await sender.send(request('/big'))).toEqual({ ok: true, statusCode: 200 });
  });

  it('times out an attempt that never gets an answer', async () => {
    const sender = new WebhookSender({ allowPrivate: true, timeoutMs: 200 });
    const started = Date.now();
    const outcome = await sender.send(request('/hang'));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 200 ms' });
    // The 200 ms asked for, not the default: a loaded machine may add a second or two, not that.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses private addresses without connecting unless allowed', async () => {
    const sender = new WebhookSender({ allowPrivate: false });
    const before = seen;
    expect(await sender.send(request('/ok'))).toEqual({
      ok: false,
      statusCode: null,
      error: ADDRESS_NOT_ALLOWED_ERROR,
    });
    const port = (server.address() as AddressInfo).port;
    // A host name resolving to loopback is refused at connect time by the guarded lookup.
    expect(await sender.send({ ...request('/ok'), url: `http://localhost:${port}/ok` })).toEqual({
      ok: false,
      statusCode: null,
      error: ADDRESS_NOT_ALLOWED_ERROR,
    });
    expect(seen).toBe(before);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sender = new WebhookSender({ allowPrivate: true });
    expect(await sender.send({ ...request('/'), url: `http://127.0.0.1:${port}/` })).toEqual({
      ok: false,
      statusCode: null,
      error: 'ECONNREFUSED',
    });
  });
});
