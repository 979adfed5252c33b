import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptResult } from '../src/app/metrics';
import { WebhookSender } from '../src/app/sender';

/** The `result` label of real sends: every way an attempt ends maps to one bounded value. */
describe('attemptResult of what the sender reports', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const status = Number(req.url?.slice(1));
      if (req.url === '/hang') return;
      res.writeHead(Number.isInteger(status) && status >= 200 ? status : 204, { location: '/x' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (url: string, options: { allowPrivate?: boolean; timeoutMs?: number } = {}) =>
    new WebhookSender({
      allowPrivate: options.allowPrivate ?? true,
      // Answered at once by a server in this process; the bound is for a loaded machine.
      timeoutMs: options.timeoutMs ?? 10_000,
    }).send({
      url,
      body: Buffer.from('{}'),
      headers: { 'Content-Type': 'application/json' },
    });

  it('names HTTP answers by class', async () => {
    expect(attemptResult(await send(`${base}/200`))).toBe('succeeded');
    expect(attemptResult(await send(`${base}/204`))).toBe('succeeded');
    expect(attemptResult(await send(`${base}/302`))).toBe('http_3xx');
    expect(attemptResult(await send(`${base}/410`))).toBe('http_4xx');
    expect(attemptResult(await send(`${base}/503`))).toBe('http_5xx');
  });

  it('names failures without an answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(attemptResult(await send(`http://127.0.0.1:${port}/`))).toBe('connection_error');
    expect(attemptResult(await send(`${base}/hang`, { timeoutMs: 100 }))).toBe('timeout');
    expect(attemptResult(await send(`${base}/200`, { allowPrivate: false }))).toBe('address_not_allowed');
    expect(attemptResult(await send('ftp://example.test/'))).toBe('invalid_url');
    expect(attemptResult({ ok: false, statusCode: 101, error: 'HTTP 101' })).toBe('http_other');
  });
});
