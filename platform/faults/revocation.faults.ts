import type { Call } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { VoiceClientError } from '../../client/src/index';
import { seedCalls } from '../test/api/calls-seed-support';
import {
  expectRefused,
  type Followed,
  follow,
  type KeySocket,
  keySocket,
  once,
} from '../test/api/graphql-ws-support';
import { type CallStream, callStream } from '../test/api/trpc-stream-support';
import { createKey } from '../test/support/accounts';
import { type HeldExport, holdExport } from '../test/support/export-stream';
import { api, type Envelope } from '../test/support/http';
import { type FaultCluster, startFaultCluster } from './support/fault-cluster';

/**
 * Revocation in the production topology (`pnpm test:faults`): two gateway processes on NATS and
 * PostgreSQL. One key holds, on each gateway, a graphql-ws socket with a subscription, a tRPC SSE
 * stream and a long CSV export; the key is revoked through the admin API of gateway-1. On both
 * gateways: the socket closes with 4403 (its subscription with it), the SSE stream ends with
 * UNAUTHORIZED, the export is cut, an operation sent on the socket is refused and has no effect,
 * REST answers 401 and a new socket is refused (4401). The account's other key keeps its socket.
 */

const FROM = '+14155550100';
const CALLS = 'subscription { callStatusChanged { id status } }';
const CREATE_AGENT = `mutation ($name: String!) {
  createAgent(input: { name: $name, startFlow: "Hi.", endFlow: "Bye." }) { id }
}`;
/** Several times what the socket buffers of a reader that stopped reading hold. */
const EXPORT_ROWS = 5000;
/** Announcements cross processes through PostgreSQL: seconds at most, even on a loaded machine. */
const WAIT = { timeout: 20_000, interval: 25 };

/** What one key holds open on one gateway. */
interface Held {
  gateway: string;
  socket: KeySocket;
  subscription: Followed;
  sse: CallStream;
  csv: HeldExport;
}

describe('revoking a key: production topology, two gateway processes', () => {
  let faults: FaultCluster | undefined;
  let stopCode: number | null | undefined;
  const sockets: KeySocket[] = [];
  const streams: CallStream[] = [];

  beforeAll(async () => {
    // One replica per service: revocation is the gateways' business (and PostgreSQL's).
    faults = await startFaultCluster({ REPLICAS: '1', SIM_TIME_SCALE: '0.01' });
  }, 150_000);

  afterAll(async () => {
    for (const sse of streams) sse.stop();
    await Promise.all(sockets.map((s) => s.client.dispose()));
    stopCode = await faults?.stop();
    expect(stopCode, 'every process stopped cleanly on SIGTERM').toBe(0);
  }, 60_000);

  function connect(gateway: string, key: string): KeySocket {
    const socket = keySocket(gateway, key);
    sockets.push(socket);
    return socket;
  }

  async function open(gateway: string, key: string): Promise<Held> {
    const socket = connect(gateway, key);
    await socket.ready;
    expect(socket.codes, `socket on ${gateway}`).toEqual([]);
    const subscription = follow(socket.client, CALLS);
    const sse = callStream(gateway, key);
    streams.push(sse);
    await sse.started;
    const csv = await holdExport(gateway, key);
    return { gateway, socket, subscription, sse, csv };
  }

  const agentCount = async (accountId: string) => {
    const [row] = await faults!.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM agent.agents WHERE account_id = ${accountId}`;
    return row!.n;
  };

  it('ends the key’s sockets, SSE streams and exports on both gateways, and refuses it everywhere', async () => {
    const { gateways, adminToken } = faults!;
    const victim = await faults!.account('Revoked');
    const otherKey = await createKey({ url: gateways[0]!, adminToken }, victim.accountId);
    await seedCalls(faults!.databaseUrl, victim.accountId, EXPORT_ROWS);
    const agent = await api<Envelope<{ id: string }>>(gateways[0]!, 'POST', '/v1/agents', {
      key: victim.key,
      body: { name: 'Live', start_flow: 'Hi.', end_flow: 'Bye.' },
    });
    expect(agent.status, agent.text).toBe(201);

    const held = await Promise.all(gateways.map((g) => open(g, victim.key)));
    const kept = connect(gateways[1]!, otherKey);
    await kept.ready;
    // Live on both gateways: a call placed through gateway-1 reaches every subscription and stream.
    const call = await api<Envelope<Call>>(gateways[0]!, 'POST', '/v1/call', {
      key: victim.key,
      body: { agent_id: agent.body.data.id, source_number: FROM, phone_number: '+14155550123' },
    });
    expect(call.status, call.text).toBe(201);
    await Promise.all(held.flatMap((h) => [h.subscription.first, h.sse.first]));
    const agentsBefore = await agentCount(victim.accountId);

    const revoked = await api(gateways[0]!, 'DELETE', `/admin/api-keys/${victim.keyId}`, { key: adminToken });
    expect(revoked.status, revoked.text).toBe(204);
    const revokedAt = Date.now();
    // Sent at once on the sockets opened before, racing the announcement: refused either way
    // (UNAUTHENTICATED on the socket, or the socket closed under it), and nothing created.
    const sent = await Promise.all(
      held.flatMap((h) => [
        once(h.socket.client, CREATE_AGENT, { name: `After on ${h.gateway}` }),
        once(h.socket.client, '{ agents { total } }'),
      ]),
    );
    sent.forEach((outcome, i) => {
      expectRefused(outcome, `operation ${i % 2} on ${held[Math.floor(i / 2)]!.gateway}`);
    });

    const ends = await Promise.all(
      held.map(async (h) => {
        await vi.waitFor(() => expect(h.socket.codes[0], `socket on ${h.gateway}`).toBe(4403), WAIT);
        const closedAfterMs = Date.now() - revokedAt;
        const [subscriptionEnd, sseEnd, csv] = await Promise.all([
          h.subscription.ended,
          h.sse.ended,
          h.csv.finish(),
        ]);
        return {
          gateway: h.gateway,
          closedAfterMs,
          subscriptionEnd,
          sseEnd: sseEnd as VoiceClientError,
          csv,
        };
      }),
    );
    console.log(
      [
        '',
        'after the revocation (DELETE answered on gateway-1):',
        ...ends.map(
          (e) =>
            `  ${e.gateway}: socket closed 4403 within ${e.closedAfterMs} ms, export ` +
            `${e.csv.cut ? 'cut after' : 'ran to its end:'} ${e.csv.lines} of ${EXPORT_ROWS + 1} lines`,
        ),
        ...sent.map(
          (o, i) =>
            `  operation ${i % 2 === 0 ? 'createAgent' : 'agents'} on ${held[Math.floor(i / 2)]!.gateway}: ` +
            (o.result
              ? `refused on the open socket: ${o.result.errors?.[0]?.extensions?.code}`
              : `refused by the socket closing (${(o.error as { code?: number }).code ?? String(o.error)})`),
        ),
        '',
      ].join('\n'),
    );
    for (const end of ends) {
      expect((end.subscriptionEnd as { code?: number }).code, `subscription on ${end.gateway}`).toBe(4403);
      expect(end.sseEnd.data, `SSE stream on ${end.gateway}`).toMatchObject({
        code: 'UNAUTHORIZED',
        httpStatus: 401,
      });
      expect(end.sseEnd.message).toBe('This API key has been revoked');
      expect(end.csv.cut, `export on ${end.gateway} ran to its end (${end.csv.lines} lines)`).toBeDefined();
      expect(end.csv.lines).toBeLessThan(EXPORT_ROWS + 1);
    }

    for (const gateway of gateways) {
      for (const path of ['/v1/me', '/v1/calls?page_size=1', '/v1/calls/export?format=csv']) {
        const res = await api(gateway, 'GET', path, { key: victim.key });
        expect(res.status, `${path} on ${gateway}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
      const again = connect(gateway, victim.key);
      await vi.waitFor(() => expect(again.codes, `new socket on ${gateway}`).toEqual([4401]), WAIT);
    }
    expect(await agentCount(victim.accountId)).toBe(agentsBefore);
    // The account's other key is not touched.
    const still = await once(kept.client, '{ agents { total } }');
    expect(still.result?.errors, JSON.stringify(still)).toBeUndefined();
    expect(kept.codes).toEqual([]);
  }, 120_000);
});
