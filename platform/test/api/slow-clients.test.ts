import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { RawConnection } from '../support/raw-socket';

/** Short limits, so a test sees them enforced in a second or two. */
const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 1500;
const CAP = 4;
/** Time for a cut-off or refused connection to be closed: a timeout check, the answer, the linger. */
const CLOSE_WITHIN_MS = 10_000;

/**
 * Clients that hold connections without finishing a request, or open too many. Each test connects
 * from its own loopback address (all of 127.0.0.0/8 is loopback on Linux), so the per-address cap
 * counts only its own connections.
 */
describe.each(infraModes())('slow and greedy clients (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode, {
      captureLogs: true,
      config: {
        HTTP_HEADERS_TIMEOUT_MS: HEADERS_TIMEOUT_MS,
        HTTP_REQUEST_TIMEOUT_MS: REQUEST_TIMEOUT_MS,
        MAX_CONNECTIONS_PER_IP: CAP,
      },
    });
  });
  afterAll(async () => t?.stop());

  const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

  it('cuts off a body that trickles in: 408 in the envelope, then closes the connection', async () => {
    const client = await RawConnection.open(t.url, '127.0.0.11');
    const started = performance.now();
    client.write(
      head([
        'POST /v1/agents HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${t.devKey}`,
        'Content-Type: application/json',
        'Content-Length: 100000',
      ]),
    );
    client.dribble('{', 200);
    const answer = await client.answer(CLOSE_WITHIN_MS);
    expect(performance.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toMatchObject({
      success: false,
      detail: 'The request was not received in time',
      request_id: answer.headers['x-request-id'],
    });
    // Still sending, the client does not get to keep the connection.
    await client.closedWithin(CLOSE_WITHIN_MS);
    expect(client.answers()).toHaveLength(1);
  });

  it('cuts off headers that trickle in, and a connection that never sends a request', async () => {
    const slow = await RawConnection.open(t.url, '127.0.0.12');
    const silent = await RawConnection.open(t.url, '127.0.0.12');
    slow.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    slow.dribble('a', 200);
    for (const client of [slow, silent]) {
      expect((await client.answer(CLOSE_WITHIN_MS)).status).toBe(408);
      // A client that carries on sending is not let to keep the connection either.
      client.dribble('a', 200);
      await client.closedWithin(CLOSE_WITHIN_MS);
    }
  });

  it('answers a request refused from its headers at once, with Connection: close, not waiting for its body', async () => {
    const post = (path: string, headers: string[]) =>
      head([`POST ${path} HTTP/1.1`, 'Host: x', 'Content-Length: 100000', ...headers]);
    const key = `Authorization: Bearer ${t.devKey}`;
    const json = 'Content-Type: application/json';
    const cases: [string, number][] = [
      [post('/v1/agents', [json]), 401],
      [post('/v1/agents', ['Authorization: Bearer nope', json]), 401],
      [post('/v1/agents', [key, 'Content-Type: text/csv']), 415],
      [post('/v1/nope', [key, json]), 404],
      [head(['POST /v1/agents HTTP/1.1', 'Host: x', key, json, `Content-Length: ${32 * 1024 * 1024}`]), 413],
    ];
    // At once, each from its own address: each takes the linger to close.
    const refuse = async ([request, status]: [string, number], i: number) => {
      const client = await RawConnection.open(t.url, `127.0.0.${20 + i}`);
      const started = performance.now();
      client.write(request);
      client.dribble('{', 200);
      const answer = await client.answer(CLOSE_WITHIN_MS);
      expect(answer.status, request).toBe(status);
      // Before the request timeout could have answered for it.
      expect(performance.now() - started, request).toBeLessThan(REQUEST_TIMEOUT_MS);
      expect(answer.headers.connection, request).toBe('close');
      // The client trickles on and does not close: the server closes, with nothing more to say.
      await client.closedWithin(CLOSE_WITHIN_MS);
      expect(client.answers(), request).toHaveLength(1);
    };
    await Promise.all(cases.map(refuse));
  });

  it(`holds at most ${CAP} connections per client address: the next gets 429 and is closed`, async () => {
    const health = 'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n';
    const held: RawConnection[] = [];
    // Each serves a request and stays open (keep-alive), idle.
    for (let i = 0; i < CAP; i++) {
      const client = await RawConnection.open(t.url, '127.0.0.14');
      client.write(health);
      expect((await client.answer(CLOSE_WITHIN_MS)).status).toBe(200);
      held.push(client);
    }
    const refused = await RawConnection.open(t.url, '127.0.0.14');
    refused.write(health);
    const answer = await refused.answer(CLOSE_WITHIN_MS);
    expect(answer.status).toBe(429);
    expect(answer.headers).toMatchObject({ connection: 'close', 'retry-after': '1' });
    expect(JSON.parse(answer.body)).toMatchObject({
      success: false,
      detail: `Too many open connections from your address (at most ${CAP}); close some and retry`,
    });
    refused.dribble('x', 200);
    await refused.closedWithin(CLOSE_WITHIN_MS);

    // The held connections still work; another address is not affected.
    held[0]!.write(health);
    expect((await held[0]!.answer(CLOSE_WITHIN_MS, 2)).status).toBe(200);
    const other = await RawConnection.open(t.url, '127.0.0.15');
    other.write(health);
    expect((await other.answer(CLOSE_WITHIN_MS)).status).toBe(200);
    other.destroy();

    // Once one closes, the address may connect again (as soon as the server has seen the close).
    held.pop()!.destroy();
    let admitted: number | undefined;
    for (const deadline = Date.now() + CLOSE_WITHIN_MS; admitted !== 200 && Date.now() < deadline; ) {
      const again = await RawConnection.open(t.url, '127.0.0.14');
      again.write(health);
      admitted = (await again.answer(CLOSE_WITHIN_MS)).status;
      again.destroy();
      await again.closed;
    }
    expect(admitted).toBe(200);
    for (const client of held) client.destroy();
  });

  it('logged no error for any of it', () => {
    const errors = t.logs.filter((line) => (line.level as number) >= 50);
    expect(errors).toEqual([]);
  });
});
