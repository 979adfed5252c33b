import { request } from 'node:http';
import { connect } from 'node:net';
import { AppError } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAppError } from '../../../gateway/src/http/to-app-error';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type ErrorEnvelope, rawRequest } from '../support/http';

/**
 * Bugs the HTTP fuzz suite (platform/fuzz, `pnpm test:fuzz`) found, one regular test each: requests
 * Node or a library answered bare, dropped, or answered in another surface's format, and the like.
 */

type GraphQLErrors = { errors: { message: string; extensions: { code: string } }[] };
type TrpcError = { error: { message: string; code: number; data: { code: string; httpStatus: number } } };

function expectEnvelope(status: number, headers: Record<string, string>, body: string): ErrorEnvelope {
  const parsed = JSON.parse(body) as ErrorEnvelope;
  expect(parsed).toMatchObject({ success: false, detail: expect.any(String) });
  expect(parsed.request_id).toBe(headers['x-request-id']);
  expect(headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(status).toBeLessThan(500);
  return parsed;
}

/** Reads an answer slowly (paused first), as a client busy elsewhere would: all its bytes must come. */
function slowRead(port: number, request: string): Promise<{ head: string; bodyBytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(request);
      socket.pause();
      setTimeout(() => socket.resume(), 300);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, end).toString('latin1'), bodyBytes: all.length - end - 4 });
    });
    socket.setTimeout(30_000, () => socket.destroy(new Error('timed out')));
  });
}

describe('fuzz regressions: requests Node or a library answered on its own', () => {
  let t: TestPlatform;
  let port: number;
  beforeAll(async () => {
    t = await startTestPlatform('embedded', { captureLogs: true });
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => t?.stop());

  it('serves a request with an Expect it does not know (even empty) instead of a bare 417', async () => {
    for (const expectation of ['junk', '']) {
      const res = await rawRequest(
        t.url,
        `GET /v1/health HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, expectation).toBe(200);
      expect(JSON.parse(res.body).success).toBe(true);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });

  it('refuses an HTTP/1.1 request without Host in the envelope, not with a bare 400', async () => {
    const res = await rawRequest(t.url, 'GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expect(expectEnvelope(res.status, res.headers, res.body).detail).toContain('Host');
  });

  it('serves an HTTP/1.0 request without Host, GraphQL included (was a 500: Invalid URL)', async () => {
    const health = await rawRequest(t.url, 'GET /v1/health HTTP/1.0\r\n\r\n');
    expect(health.status).toBe(200);
    const graphql = await rawRequest(
      t.url,
      'GET /graphql?query=%7B%20voices%20%7B%20id%20%7D%20%7D HTTP/1.0\r\nApollo-Require-Preflight: true\r\n\r\n',
    );
    expect(graphql.status).toBe(200);
    expect(JSON.parse(graphql.body).data.voices.length).toBeGreaterThan(0);
  });

  it('answers CONNECT with 405 in the envelope instead of dropping the connection', async () => {
    for (const target of ['/v1/calls', '127.0.0.1:80']) {
      const res = await rawRequest(t.url, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(res.status, target).toBe(405);
      expectEnvelope(res.status, res.headers, res.body);
    }
  });

  it('sends the whole answer to a GET that carried a body and asked to close (was cut by a reset)', async () => {
    const body = 'x'.repeat(200_000);
    const { head, bodyBytes } = await slowRead(
      port,
      `GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
    expect(bodyBytes).toBe(length);
  });

  it('refuses a GET body over the size limit like any other', async () => {
    // Node's client, which takes an early answer while it is still sending (fetch sends no GET body).
    const size = 16 * 1024 * 1024 + 1;
    const res = await new Promise<{ status: number; headers: Record<string, string>; body: string }>(
      (resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'GET', path: '/v1/health', headers: { 'content-length': size } },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => {
              body += chunk.toString('utf8');
            });
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers as Record<string, string>,
                body,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(Buffer.alloc(size, 0x20));
      },
    );
    expect(res.status).toBe(413);
    expectEnvelope(res.status, res.headers, res.body);
  });

  it('closes a WebSocket upgrade to a plain route once answered (the socket leaked and held shutdown)', async () => {
    // rawRequest resolves when the server closes the connection, and fails after 5 s otherwise.
    const res = await rawRequest(
      t.url,
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    expect(res.status).toBe(200);
    const unknown = await rawRequest(
      t.url,
      'GET /v1/nope HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(unknown.status).toBe(404);
    expectEnvelope(unknown.status, unknown.headers, unknown.body);
  });

  it('takes a client that leaves mid-body for a client error, not a database outage', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(toAppError(aborted, 'application/json')).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    const database = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toAppError(database, undefined)).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(toAppError(new AppError('NOT_FOUND'), undefined).status).toBe(404);
  });

  it('answers GraphQL requests Fastify refuses (media type, JSON) as GraphQL errors', async () => {
    const wrongType = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
      key: t.devKey,
      rawBody: '{ voices { id } }',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
    expect(wrongType.headers.get('x-request-id')).toBeTruthy();
    const badJson = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
      key: t.devKey,
      rawBody: '{"query":',
      headers: { 'content-type': 'application/json' },
    });
    expect(badJson.status).toBe(422);
    expect(badJson.body.errors[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a GraphQL subscription over HTTP as a bad request, not an internal error', async () => {
    const res = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
      key: t.devKey,
      body: {
        query: 'subscription { campaignProgress(campaignId: "00000000-0000-0000-0000-000000000000") { id } }',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
    expect(res.body.errors[0]?.message).toContain('WebSocket');
  });

  it('refuses GraphQL documents nested thousands deep without overflowing the parser (was a 500)', async () => {
    for (const depth of [1400, 6000]) {
      const res = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
        key: t.devKey,
        body: { query: `{ ${'agents { '.repeat(depth)}total${' }'.repeat(depth)} }` },
      });
      expect(res.status, String(depth)).toBe(400);
      expect(res.body.errors[0]?.extensions.code).toMatch(/^GRAPHQL_(PARSE|VALIDATION)_FAILED$/);
    }
  });

  it('measures a fragment bomb in linear time (it held the event loop for minutes)', async () => {
    const n = 40;
    const fragments = Array.from(
      { length: n },
      (_, i) => `fragment F${i + 1} on Voice { ...F${i} ...F${i} }`,
    );
    const started = performance.now();
    const res = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
      key: t.devKey,
      body: { query: `{ voices { ...F${n} } }\nfragment F0 on Voice { id }\n${fragments.join('\n')}` },
    });
    // Milliseconds when linear; the exponential walk took minutes. The bound leaves a loaded
    // machine its stalls.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it("gives Apollo's own code-less request errors a client code (persisted query hash mismatch)", async () => {
    const res = await api<GraphQLErrors>(t.url, 'POST', '/graphql', {
      key: t.devKey,
      body: {
        query: '{ voices { id } }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
  });

  it("answers tRPC requests Fastify refuses, and deeper unknown paths, in tRPC's error shape", async () => {
    const wrongType = await api<TrpcError>(t.url, 'POST', '/trpc/agents.create', {
      key: t.devKey,
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.error.data).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 });
    const deeper = await api<TrpcError>(t.url, 'POST', '/trpc/agents.list/extra', { key: t.devKey });
    expect(deeper.status).toBe(404);
    expect(deeper.body.error.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404 });
  });

  it('logged no error for any of the above', () => {
    const errors = t.logs.filter((line) => (line.level as number) >= 50);
    expect(errors).toEqual([]);
  });
});
