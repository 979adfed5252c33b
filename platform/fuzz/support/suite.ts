import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { InfraMode } from '@voice/shared/testing';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { VoiceClientError } from '../../../client/src/index';
import { startTestPlatform, type TestPlatform } from '../../test/support/harness';
import { healthWhen } from '../../test/support/health';
import { api } from '../../test/support/http';
import { createFixtures } from './fixtures';
import { gatewaySchema, graphqlRequest } from './graphql';
import { type OpenApiDocument, type Operation, operationsOf } from './openapi';
import { judge, type Sent, surfaceOf } from './oracle';
import { rawRequest } from './raw';
import { type Focus, restRequest } from './rest';
import { type HeldConnections, holdConnections } from './revocation';
import { runConnectionFlood, runSlowAttack, slowAttack } from './slow';
import {
  type HttpRequest,
  type Outcome,
  probeLoopbackAliases,
  type RawRequest,
  sendHttp,
  sendRaw,
} from './transport';
import { procedures, trpcRequest } from './trpc';

const SEED = Number(process.env.FUZZ_SEED || 20_251_122);
const RUNS = Number(process.env.FUZZ_RUNS || 10_000);
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';
/** Where to write each failing request in full (JSON, the body in base64), for replaying it by hand. */
const DUMP_DIR = process.env.FUZZ_DUMP;
let dumped = 0;

function dumpOf(request: HttpRequest | RawRequest): Record<string, unknown> {
  if ('bytes' in request) return { raw: request.bytes.toString('base64') };
  return { ...request, body: request.body?.toString('base64') };
}

/** Shares of the budget, per generator (they add up to 100). */
const SHARES: { name: string; share: number }[] = [
  { name: 'REST bodies', share: 26 },
  { name: 'REST path parameters', share: 12 },
  { name: 'REST query strings', share: 14 },
  { name: 'REST headers and methods', share: 14 },
  { name: 'malformed HTTP over raw sockets', share: 10 },
  { name: 'GraphQL', share: 13 },
  { name: 'tRPC', share: 11 },
];
const runsOf = (name: string) =>
  Math.max(1, Math.round((RUNS * (SHARES.find((s) => s.name === name)?.share ?? 0)) / 100));
const seedOf = (name: string) => SEED + SHARES.findIndex((s) => s.name === name);
/**
 * Limits short enough for the slow-client attacks to meet them in seconds, which every other
 * request of the fuzz must then pass too.
 */
const LIMITS = { HTTP_HEADERS_TIMEOUT_MS: 2000, HTTP_REQUEST_TIMEOUT_MS: 4000, MAX_CONNECTIONS_PER_IP: 16 };
/** Slow attacks (each lasts seconds: run side by side, each from its own address). */
const SLOW_RUNS = Math.max(10, Math.round(RUNS / 250));
const SLOW_AT_ONCE = 20;
/** By then a slow attack's connection must be closed: the longer timeout, a check, the answer, the linger. */
const SLOW_CLOSE_MS = 15_000;

function describeRequest(request: HttpRequest | RawRequest): string {
  if ('bytes' in request)
    return `raw bytes: ${JSON.stringify(request.bytes.subarray(0, 400).toString('latin1'))}`;
  const body = request.body
    ? ` body(${request.body.length}B): ${JSON.stringify(request.body.subarray(0, 300).toString('utf8'))}`
    : '';
  return `${request.method} ${request.target.slice(0, 300)} headers: ${JSON.stringify(request.headers).slice(0, 400)}${body}`;
}

/** An answer's status, and for GraphQL its first error code (a 200 may carry errors). */
function labelOf(sent: Sent, outcome: Outcome): string {
  if (outcome.kind !== 'responses' && outcome.kind !== 'stream') return outcome.kind;
  const first = outcome.responses.find((r) => r.status >= 200) ?? outcome.responses[0];
  if (!first) return '?';
  if (surfaceOf(sent.target) !== 'graphql' || outcome.kind === 'stream') return String(first.status);
  try {
    const body = JSON.parse(first.body.toString('utf8')) as { errors?: { extensions?: { code?: string } }[] };
    const code = body.errors?.[0]?.extensions?.code;
    return code ? `${first.status} ${code}` : String(first.status);
  } catch {
    return String(first.status);
  }
}

function describeOutcome(outcome: Outcome): string {
  if (outcome.kind !== 'responses' && outcome.kind !== 'stream') return outcome.kind;
  return outcome.responses
    .map(
      (r) =>
        `${r.status} ${JSON.stringify(r.headers['content-type'] ?? [])} ${r.body.subarray(0, 300).toString('utf8')}`,
    )
    .join(' | ');
}

/**
 * The HTTP fuzz suite (`pnpm test:fuzz`) for one infrastructure mode, inside its file's describe:
 * FUZZ_RUNS generated requests (default 10,000) against one started platform, from a fixed seed
 * (FUZZ_SEED) so a failure replays. Every answer must be < 500, complete within 5 s, in the documented error shape of its
 * surface, and no error may be logged; the platform must be healthy at the end.
 *
 * FUZZ_KEEP_GOING=1 runs every case and lists each distinct failure instead of stopping at (and
 * shrinking) the first.
 */
export function fuzzSuite(mode: InfraMode): void {
  console.log(`fuzz (${mode}): seed ${SEED} (FUZZ_SEED), ${RUNS} requests (FUZZ_RUNS)`);

  let t: TestPlatform;
  let port: number;
  let fixtures: Awaited<ReturnType<typeof createFixtures>>;
  let held: HeldConnections;
  let operations: Operation[];
  let schema: GraphQLSchema;
  let logCursor = 0;
  let aliases = false;
  /** The gateway's open connections, each with the last request line it carried. */
  const connections = new Map<Socket, string>();
  function trackConnections(server: Server): void {
    server.on('connection', (socket: Socket) => {
      connections.set(socket, '(no request)');
      socket.once('close', () => connections.delete(socket));
    });
    const note = (request: IncomingMessage) => {
      if (connections.has(request.socket))
        connections.set(request.socket, `${request.method} ${request.url?.slice(0, 120)}`);
    };
    server.on('request', note);
    server.on('upgrade', note);
  }
  let sinceRestock = 0;
  const failures = new Map<string, string>();
  /** What the answers were, per generator: the run's own evidence that it reached past the edge. */
  let tally = new Map<string, number>();
  let slowest = { ms: 0, what: '' };

  beforeAll(async () => {
    t = await startTestPlatform(mode, {
      captureLogs: true,
      // Calls end in well under a second; the carrier's pace is not under test.
      config: { SIM_TIME_SCALE: 0.01, WEBHOOK_RETRY_BASE_MS: 50, ...LIMITS },
    });
    port = Number(new URL(t.url).port);
    aliases = await probeLoopbackAliases(port);
    trackConnections(t.platform.gateway!.app.server);
    fixtures = await createFixtures(t);
    held = await holdConnections(t.url, fixtures.spare.key);
    const doc = await api<OpenApiDocument>(t.url, 'GET', '/v1/openapi.json');
    operations = operationsOf(doc.body);
    schema = gatewaySchema();
    logCursor = t.logs.length;
  }, 120_000);

  afterAll(async () => {
    await held?.dispose();
    await t?.stop();
  });

  /**
   * What the platform logged since the last look: its error lines (a 5xx or a bug, whatever the
   * client saw) are failures; warnings go into a failure's report as context.
   */
  function newLogs(): { errors: string[]; context: string[] } {
    const lines = t.logs.slice(logCursor);
    logCursor = t.logs.length;
    const text = (line: Record<string, unknown>) =>
      `${String(line.msg)} ${JSON.stringify(line.err ?? line.res ?? '').slice(0, 300)}`;
    const status = (line: Record<string, unknown>) =>
      (line.res as { statusCode?: number } | undefined)?.statusCode ?? 0;
    return {
      errors: lines
        .filter((l) => (l.level as number) >= 50 || status(l) >= 500)
        .map((l) => `logged: ${text(l)}`),
      context: lines
        .filter((l) => (l.level as number) === 40)
        .map(text)
        .slice(0, 5),
    };
  }

  async function exchange(request: HttpRequest | RawRequest): Promise<void> {
    if (++sinceRestock >= 250) {
      sinceRestock = 0;
      await fixtures.restock();
    }
    let sent: Sent;
    let outcome: Outcome;
    if ('bytes' in request) {
      const [method = '', target = ''] = request.bytes
        .subarray(0, 200)
        .toString('latin1')
        .split(/[ \r\n]/);
      sent = {
        method,
        target,
        raw: true,
        incomplete: !request.complete,
        ...(request.targets ? { targets: request.targets } : {}),
      };
      outcome = await sendRaw(port, request);
    } else {
      sent = request;
      outcome = await sendHttp(port, request);
    }
    // Log lines of this request are written before its answer; a short wait catches stragglers.
    await new Promise((resolve) => setImmediate(resolve));
    const label = labelOf(sent, outcome);
    tally.set(label, (tally.get(label) ?? 0) + 1);
    if ('ms' in outcome && outcome.ms > slowest.ms)
      slowest = { ms: outcome.ms, what: describeRequest(request).slice(0, 160) };
    const logs = newLogs();
    const problems = [...judge(sent, outcome), ...logs.errors];
    if (problems.length === 0) return;
    const warnings = logs.context.length > 0 ? `\n    warnings logged: ${logs.context.join(' | ')}` : '';
    const report = `${problems.join('; ')}\n    request: ${describeRequest(request)}\n    answer: ${describeOutcome(outcome)}${warnings}`;
    if (DUMP_DIR) {
      mkdirSync(DUMP_DIR, { recursive: true });
      const file = join(DUMP_DIR, `${mode}-${++dumped}.json`);
      writeFileSync(file, JSON.stringify(dumpOf(request), null, 2));
    }
    if (!KEEP_GOING) throw new Error(report);
    const key = `${sent.method} ${sent.target.split('?')[0]?.slice(0, 60)} :: ${problems.map((p) => p.slice(0, 80)).join('; ')}`;
    if (!failures.has(key)) failures.set(key, report);
  }

  async function run<T extends HttpRequest | RawRequest>(
    name: string,
    arbitrary: fc.Arbitrary<T>,
  ): Promise<void> {
    const before = failures.size;
    const started = performance.now();
    tally = new Map();
    slowest = { ms: 0, what: '' };
    // fast-check prints a failing case with this (a body may be 16 MiB).
    const printable = arbitrary.map((request) =>
      Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) }),
    );
    await fc.assert(
      fc.asyncProperty(printable, async (request) => {
        await exchange(request);
      }),
      { seed: seedOf(name), numRuns: runsOf(name), endOnFailure: KEEP_GOING },
    );
    const answers = [...tally.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, count]) => `${label}: ${count}`)
      .join(', ');
    console.log(
      `fuzz (${mode}) ${name}: ${runsOf(name)} requests in ${Math.round(performance.now() - started)} ms, seed ${seedOf(name)}; answers ${answers}; slowest ${slowest.ms} ms: ${slowest.what}`,
    );
    const found = [...failures.values()].slice(before);
    expect(found, `${found.length} distinct failures:\n${found.join('\n\n')}`).toEqual([]);
  }

  const rest = (focus: Focus) => () => restRequest(operations, fixtures, focus);

  it.each<[string, Focus]>([
    ['REST bodies', 'body'],
    ['REST path parameters', 'path'],
    ['REST query strings', 'query'],
    ['REST headers and methods', 'headers'],
  ])('%s: every documented operation', async (name, focus) => {
    expect(operations.length).toBeGreaterThan(30);
    await run(name, rest(focus)());
  });

  it('malformed HTTP over raw sockets', async () => {
    const paths = operations.map((op) => op.template.replace(/\{[^}]+\}/g, fixtures.ids.agent_id![0]!));
    await run('malformed HTTP over raw sockets', rawRequest(paths, fixtures));
  });

  it('slow and greedy clients: answered once, closed in time, capped per address', async () => {
    const paths = operations.map((op) => op.template.replace(/\{[^}]+\}/g, fixtures.ids.agent_id![0]!));
    const attacks = fc.sample(slowAttack(paths, fixtures), {
      seed: SEED + SHARES.length,
      numRuns: SLOW_RUNS,
    });
    const started = performance.now();
    const found: string[] = [];
    const statuses = new Map<string, number>();
    for (let at = 0; at < attacks.length; at += SLOW_AT_ONCE) {
      const batch = attacks.slice(at, at + SLOW_AT_ONCE);
      const results = await Promise.all(
        batch.map((attack, i) =>
          runSlowAttack(t.url, attack, aliases ? `127.0.0.${210 + i}` : undefined, SLOW_CLOSE_MS),
        ),
      );
      results.forEach(({ status, problems }, i) => {
        const label = String(status ?? 'none');
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
        const request = JSON.stringify(batch[i]!.head.slice(0, 300));
        found.push(...problems.map((p) => `${p}\n    request: ${request}`));
      });
    }
    // One address past its cap (another address's cap: the fixtures' own connections are not in it).
    if (aliases) {
      const flood = await runConnectionFlood(
        t.url,
        '127.0.0.250',
        LIMITS.MAX_CONNECTIONS_PER_IP,
        8,
        SLOW_CLOSE_MS,
      );
      found.push(...flood.map((p) => `connection flood: ${p}`));
    }
    found.push(...newLogs().errors);
    console.log(
      `fuzz (${mode}) slow and greedy clients: ${attacks.length} attacks${aliases ? ' and a connection flood' : ''} in ${Math.round(performance.now() - started)} ms; answers ${[...statuses.entries()].map(([status, n]) => `${status}: ${n}`).join(', ')}`,
    );
    expect(found, `${found.length} failures:\n${found.join('\n\n')}`).toEqual([]);
  });

  it('GraphQL: generated and hostile documents', async () => {
    await run('GraphQL', graphqlRequest(schema, fixtures));
  });

  it('tRPC: every procedure, batches and junk', async () => {
    await run('tRPC', trpcRequest(procedures(), fixtures));
  });

  it('ends the spare key’s socket (4403) and SSE stream (UNAUTHORIZED) once it is revoked', async () => {
    // The fuzz may have revoked it already (revoking again answers 204 too).
    const revoked = await api(t.url, 'DELETE', `/admin/api-keys/${fixtures.spare.id}`, {
      key: fixtures.keys.admin,
    });
    expect(revoked.status).toBe(204);
    await vi.waitFor(
      () => {
        expect(held.closeCodes[0]).toBe(4403);
        expect((held.subscriptionEnd as { code?: number } | undefined)?.code).toBe(4403);
        expect((held.streamEnd as VoiceClientError | undefined)?.data?.code).toBe('UNAUTHORIZED');
      },
      { timeout: 15_000, interval: 50 },
    );
  });

  it('is still healthy, logged no error and holds no fuzz connection open', async () => {
    await healthWhen(t.url, (health) => expect(health.status).toBe('ok'));
    expect(newLogs().errors).toEqual([]);
    // Every fuzz request's connection was closed by our side: the server must have let go of it
    // too (one it keeps would hold its shutdown). 127.0.0.1 is the fixtures' own keep-alive client.
    if (!aliases) return;
    const leaked = () =>
      [...connections.entries()]
        .filter(([socket]) => socket.remoteAddress !== '127.0.0.1')
        .map(([, line]) => line);
    // The server closes its side moments after ours (seconds on a loaded machine).
    await vi.waitFor(() => expect(leaked()).toEqual([]), { timeout: 30_000, interval: 50 });
  });
}
