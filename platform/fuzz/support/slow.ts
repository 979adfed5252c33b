import fc from 'fast-check';
import { RawConnection } from '../../test/support/raw-socket';
import { envelopeProblems, judge } from './oracle';
import { type FuzzResponse, parseResponses } from './transport';
import type { Fixtures } from './values';

/**
 * Clients that never finish a request: headers or a body trickled a byte at a time, from a client
 * that ignores our close and carries on sending. Whatever the request, it gets one answer, refused
 * from its headers at once (401, 404, 413, 415, ...) or a 408 when its time is up, and the server
 * closes the connection soon after.
 */
export interface SlowAttack {
  /** The bytes sent at once: a request line and some headers, or whole headers and part of a body. */
  head: string;
  /** Sent every DRIP_MS until the connection closes. */
  drip: string;
  method: string;
  target: string;
}

export const DRIP_MS = 200;

export function slowAttack(paths: string[], fixtures: Fixtures): fc.Arbitrary<SlowAttack> {
  const target = fc.constantFrom(...paths, '/graphql', '/trpc/agents.create', '/v1/nope', '/');
  const method = fc.constantFrom('POST', 'PATCH', 'PUT', 'DELETE', 'GET');
  const auth = fc.constantFrom(
    [`Authorization: Bearer ${fixtures.keys.full}`],
    [`Authorization: Bearer ${fixtures.keys.admin}`],
    ['Authorization: Bearer nope'],
    [],
  );
  const type = fc.constantFrom(['Content-Type: application/json'], ['Content-Type: text/csv'], []);
  const slowHeaders = fc
    .tuple(method, target, auth, fc.constantFrom('X-Slow: ', 'Content-Type: applic', ''))
    .map(([m, t, a, partial]) => ({
      head: [`${m} ${t} HTTP/1.1`, 'Host: 127.0.0.1', ...a, partial].join('\r\n'),
      drip: 'a',
      method: m,
      target: t,
    }));
  const slowBody = fc
    .tuple(
      method,
      target,
      auth,
      type,
      // Always more than `start`: the body is never complete.
      fc.oneof(
        fc.integer({ min: 20, max: 100_000 }),
        fc.constantFrom(16 * 1024 * 1024, 16 * 1024 * 1024 + 1),
      ),
      fc.constantFrom('', '{', '{"name":"slow'),
    )
    .map(([m, t, a, ct, length, start]) => ({
      head: `${[`${m} ${t} HTTP/1.1`, 'Host: 127.0.0.1', ...a, ...ct, `Content-Length: ${length}`].join('\r\n')}\r\n\r\n${start}`,
      drip: ' ',
      method: m,
      target: t,
    }));
  return fc.oneof(slowHeaders, { weight: 3, arbitrary: slowBody });
}

/**
 * Runs one attack from `localAddress`: the answer's status, and what is wrong with how the gateway
 * handled it (nothing when it answered once, in its surface's format, below 500, and closed the
 * connection by `withinMs`).
 */
export async function runSlowAttack(
  baseUrl: string,
  attack: SlowAttack,
  localAddress: string | undefined,
  withinMs: number,
): Promise<{ status: number | undefined; problems: string[] }> {
  const client = await RawConnection.open(baseUrl, localAddress);
  client.write(attack.head);
  client.dribble(attack.drip, DRIP_MS);
  const got = () => JSON.stringify(client.text().slice(0, 160));
  try {
    await client.closedWithin(withinMs);
  } catch {
    client.destroy();
    return { status: undefined, problems: [`still open after ${withinMs} ms; got ${got()}`] };
  }
  const { responses } = parseResponses(client.data);
  const status = responses[0]?.status;
  if (responses.length !== 1) {
    return { status, problems: [`${responses.length} answers before the close; got ${got()}`] };
  }
  const sent = { method: attack.method, target: attack.target, raw: true };
  return { status, problems: judge(sent, { kind: 'responses', responses, ms: 0 }) };
}

/**
 * Opens `cap + extra` connections from one address, sending nothing: the `extra` past the cap are
 * refused at once (429 in the envelope, Retry-After), the others cut off by the headers timeout
 * (408); every one is closed by `withinMs`.
 */
export async function runConnectionFlood(
  baseUrl: string,
  localAddress: string,
  cap: number,
  extra: number,
  withinMs: number,
): Promise<string[]> {
  const clients: RawConnection[] = [];
  for (let i = 0; i < cap + extra; i++) clients.push(await RawConnection.open(baseUrl, localAddress));
  const problems: string[] = [];
  const answers: FuzzResponse[] = [];
  await Promise.all(
    clients.map(async (client) => {
      try {
        await client.answer(withinMs);
        client.dribble('x', DRIP_MS);
        await client.closedWithin(withinMs);
      } catch (error) {
        problems.push((error as Error).message);
      } finally {
        client.destroy();
      }
      answers.push(...parseResponses(client.data).responses);
    }),
  );
  const refused = answers.filter((a) => a.status === 429);
  const timedOut = answers.filter((a) => a.status === 408);
  if (refused.length !== extra || timedOut.length !== cap) {
    problems.push(`expected ${extra} 429s and ${cap} 408s, got ${answers.map((a) => a.status).join(',')}`);
  }
  for (const answer of refused) {
    problems.push(...envelopeProblems(answer));
    if (answer.headers['retry-after']?.[0] !== '1') problems.push('429 without Retry-After: 1');
  }
  return [...new Set(problems)];
}
