import { createLogger, createSql, httpLimits, type Sql } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VoiceClientError } from '../../../client/src/index';
import { buildGateway, type Gateway } from '../../../gateway/src/index';
import { createAccount, createKey } from '../support/accounts';
import { holdExport } from '../support/export-stream';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';
import { seedCalls } from './calls-seed-support';
import { expectRefused, type Followed, follow, type KeySocket, keySocket, once } from './graphql-ws-support';
import { startTcpProxy, type TcpProxy } from './tcp-proxy-support';
import { callStream } from './trpc-stream-support';

const FROM = '+14155550100';
const CREATE_AGENT = `mutation ($name: String!) {
  createAgent(input: { name: $name, startFlow: "Hi.", endFlow: "Bye." }) { id }
}`;
const MAKE_CALL = `mutation ($agentId: ID!) {
  makeCall(input: { agentId: $agentId, sourceNumber: "${FROM}", phoneNumber: "+14155550123" }) { id }
}`;
const CALLS = 'subscription { callStatusChanged { id status } }';
const WAIT = { timeout: 15_000, interval: 20 };
/** Calls to export: several times what the socket buffers of a reader that stopped reading hold. */
const EXPORT_ROWS = 5000;

/**
 * A second gateway instance on the platform's database and bus, as another replica would be. Its
 * rate-limit pool, on which it hears revocations, goes through `bookkeepingUrl`.
 */
async function startSecondGateway(
  t: TestPlatform,
  bookkeepingUrl: string,
): Promise<{ gateway: Gateway; url: string; stop(): Promise<void> }> {
  const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'gateway-b' });
  const sql = createSql(t.databaseUrl, { log, max: 4, applicationName: 'gateway-b' });
  const rateLimitSql = createSql(bookkeepingUrl, {
    log,
    max: 2,
    applicationName: 'gateway-b-bookkeeping',
    connectTimeoutSeconds: 2,
  });
  let url = '';
  const gateway = await buildGateway({
    bus: t.platform.infrastructure.bus,
    sql,
    rateLimitSql,
    log,
    adminToken: undefined,
    http: httpLimits(t.config),
    recordingSecret: t.config.RECORDING_URL_SECRET!,
    recordingStore: await t.platform.infrastructure.recordingStore(),
    publicBaseUrl: () => url,
  });
  url = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    gateway,
    url,
    async stop() {
      await gateway.app.close();
      await Promise.all([sql.end({ timeout: 5 }), rateLimitSql.end({ timeout: 5 })]);
    },
  };
}

describe.each(infraModes())('a revoked key on open connections (%s)', (mode) => {
  let t: TestPlatform;
  let sql: Sql;
  let proxy: TcpProxy;
  let b: Awaited<ReturnType<typeof startSecondGateway>>;
  const clients: Client[] = [];

  function connect(baseUrl: string, key: string): KeySocket {
    const socket = keySocket(baseUrl, key);
    clients.push(socket.client);
    return socket;
  }

  /** An account with a socket and an SSE stream on instance B, both shown to be live (they saw a call). */
  async function liveConnections() {
    const victim = await createAccount(t, { name: 'Victim' });
    const listening = b.gateway.deps.live.listenerCount;
    const socket = connect(b.url, victim.key);
    await socket.ready;
    const created = await once(socket.client, CREATE_AGENT, { name: 'Before' });
    const agentId = (created.result?.data as { createAgent: { id: string } } | undefined)?.createAgent.id;
    expect(agentId, JSON.stringify(created)).toBeDefined();
    const subscription = follow(socket.client, CALLS);
    const sse = callStream(b.url, victim.key);
    await sse.started;
    // graphql-ws acknowledges no subscription: B listening for both is the sign they started.
    await vi.waitFor(() => expect(b.gateway.deps.live.listenerCount).toBe(listening + 2), WAIT);
    const call = await once(socket.client, MAKE_CALL, { agentId });
    expect(call.result?.errors, JSON.stringify(call)).toBeUndefined();
    await Promise.all([subscription.first, sse.first]);
    return { victim, socket, subscription, sse };
  }

  /** The close code a subscription's sink was ended with. */
  const closeCode = async (followed: Followed) => ((await followed.ended) as { code?: number }).code;

  async function agentCount(accountId: string): Promise<number> {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM agent.agents WHERE account_id = ${accountId}`;
    return row!.n;
  }

  /** What instance B holds for open connections: watches by key, live listeners. */
  const heldByB = () => ({
    sessions: b.gateway.deps.sessions.size,
    listeners: b.gateway.deps.live.listenerCount,
  });

  /** Instance B let go of every connection of the test (no watch, no live listener left). */
  async function expectReleased(before: ReturnType<typeof heldByB>): Promise<void> {
    await vi.waitFor(() => {
      expect(b.gateway.deps.sessions.size).toBe(before.sessions);
      expect(b.gateway.deps.live.listenerCount).toBe(before.listeners);
    }, WAIT);
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002 } });
    sql = createSql(t.databaseUrl, {
      log: createLogger({ level: 'silent', name: 'test' }),
      max: 2,
      applicationName: 'revocation-test',
    });
    proxy = await startTcpProxy(t.databaseUrl);
    b = await startSecondGateway(t, proxy.url);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await b?.stop();
    await proxy?.close();
    await sql?.end();
    await t?.stop();
  });

  const revocations: [string, (victim: { accountId: string; keyId: string }) => Promise<void>][] = [
    [
      'the admin API of instance A',
      async ({ keyId }) => {
        const res = await api(t.url, 'DELETE', `/admin/api-keys/${keyId}`, { key: t.adminToken });
        expect(res.status).toBe(204);
      },
    ],
    [
      'an SQL UPDATE',
      async ({ keyId }) => {
        await sql`UPDATE gateway.api_keys SET revoked_at = now() WHERE id = ${keyId}`;
      },
    ],
    [
      'deleting its account in SQL',
      async ({ accountId }) => {
        await sql`DELETE FROM gateway.accounts WHERE id = ${accountId}`;
      },
    ],
  ];

  it.each(revocations)(
    'revoked through %s: on instance B its socket closes with 4403, its subscriptions and SSE stream end, its next operations are refused',
    async (_how, revoke) => {
      const before = heldByB();
      const { victim, socket, subscription, sse } = await liveConnections();
      const agentsBefore = await agentCount(victim.accountId);

      await revoke(victim);
      // Sent at once, racing the announcement: refused on the socket, or by the server on reconnect.
      const next = await Promise.all([
        once(socket.client, '{ agents { total } }'),
        once(socket.client, CREATE_AGENT, { name: 'After' }),
        once(socket.client, CALLS),
      ]);
      next.forEach((outcome, i) => {
        expectRefused(outcome, ['query', 'mutation', 'subscription'][i]!);
      });

      await vi.waitFor(() => expect(socket.codes[0]).toBe(4403), WAIT);
      expect(await closeCode(subscription)).toBe(4403);
      const sseError = (await sse.ended) as VoiceClientError;
      expect(sseError.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
      expect(sseError.message).toBe('This API key has been revoked');
      // A reconnect is refused too, at connection_init.
      const again = connect(b.url, victim.key);
      await vi.waitFor(() => expect(again.codes).toEqual([4401]), WAIT);
      // Nothing sent after the revocation ran.
      expect(await agentCount(victim.accountId)).toBe(agentsBefore);
      sse.stop();
      await expectReleased(before);
    },
  );

  it('keeps the connections of the account’s other keys', async () => {
    const before = heldByB();
    const { victim, socket, sse } = await liveConnections();
    const otherKey = await createKey(t, victim.accountId);
    const kept = connect(b.url, otherKey);
    await kept.ready;
    const keptStream = callStream(b.url, otherKey);
    await keptStream.started;
    await api(t.url, 'DELETE', `/admin/api-keys/${victim.keyId}`, { key: t.adminToken });
    await vi.waitFor(() => expect(socket.codes).toContain(4403), WAIT);
    expect(((await sse.ended) as VoiceClientError).data).toMatchObject({ code: 'UNAUTHORIZED' });
    const still = await once(kept.client, '{ agents { total } }');
    expect(still.result?.errors).toBeUndefined();
    expect(kept.codes).toEqual([]);
    await kept.client.dispose();
    keptStream.stop();
    sse.stop();
    await expectReleased(before);
  });

  it('cuts a call export in progress on instance B, and keeps the one of the account’s other key', async () => {
    const before = heldByB();
    const victim = await createAccount(t, { name: 'Exporter' });
    const otherKey = await createKey(t, victim.accountId);
    await seedCalls(t.databaseUrl, victim.accountId, EXPORT_ROWS);
    const [cut, kept] = await Promise.all([holdExport(b.url, victim.key), holdExport(b.url, otherKey)]);

    const res = await api(t.url, 'DELETE', `/admin/api-keys/${victim.keyId}`, { key: t.adminToken });
    expect(res.status).toBe(204);
    const [ended, whole] = await Promise.all([cut.finish(), kept.finish()]);
    expect(ended.cut, `the revoked key's export ran to its end (${ended.lines} lines)`).toBeDefined();
    expect(ended.lines).toBeLessThan(EXPORT_ROWS + 1);
    // The account's other key exports everything, header included.
    expect(whole).toEqual({ lines: EXPORT_ROWS + 1, cut: undefined });
    expect((await api(b.url, 'GET', '/v1/calls/export?format=csv', { key: victim.key })).status).toBe(401);
    await expectReleased(before);
  }, 60_000);

  it('finds a revocation missed while B’s listening connection was down once it reconnects', async () => {
    const before = heldByB();
    const { victim, socket, subscription, sse } = await liveConnections();
    // B's rate-limit pool, which hears the announcements, loses its connections and cannot open
    // new ones: the revocation commits while nobody on B listens, so no announcement reaches it.
    proxy.cut();
    try {
      await sql`UPDATE gateway.api_keys SET revoked_at = now() WHERE id = ${victim.keyId}`;
      expect(socket.codes).toEqual([]);
    } finally {
      proxy.resume();
    }
    // Listening again, B reads the keys of its open connections.
    await vi.waitFor(() => expect(socket.codes[0]).toBe(4403), WAIT);
    expect(await closeCode(subscription)).toBe(4403);
    expect(((await sse.ended) as VoiceClientError).data).toMatchObject({ code: 'UNAUTHORIZED' });
    sse.stop();
    await expectReleased(before);
  });
});
