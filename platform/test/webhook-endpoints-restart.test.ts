import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { WebhookEndpointWithSecret } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from './support/accounts';
import { placeCalls as placeCallsTo } from './support/calls';
import { api, type Envelope } from './support/http';
import type { NatsTopology } from './support/nats-topology';
import { pollUntil } from './support/poll';
import { signatureVerifies, type WebhookReceiver } from './support/webhook-receiver';
import { startWebhookTopology, type WebhookTopology } from './support/webhook-topology';

const FROM = '+14155550100';
/** Long enough that the kill lands between a delivery's first attempt and its retry. */
const RETRY_BASE_MS = 2000;
const CALLS_BEFORE_KILL = 4;
const CALLS_WHILE_DOWN = 4;
const EVENTS = ['CALL_RINGING', 'CALL_ANSWERED', 'CALL_ENDED'] as const;

interface DeliveryRow {
  event_id: string;
  event: string;
  status: string;
  attempt_count: number;
  session_id: string;
}

/**
 * The webhook service as its own process on NATS + PostgreSQL, killed (-9) with an account
 * endpoint's deliveries pending: some waiting for a retry, others not yet consumed from the call
 * streams (their calls rang, were answered and ended while it was down). After a restart every
 * call event reaches the endpoint, each exactly once.
 */
describe.runIf(infraModes().includes('nats'))(
  'webhook service kill -9 with endpoint deliveries pending (NATS + PostgreSQL)',
  () => {
    const adminToken = `admin-${randomBytes(16).toString('hex')}`;
    let running: WebhookTopology | undefined;
    let sql: postgres.Sql;
    let receiver: WebhookReceiver;
    let topology: NatsTopology;
    let gatewayUrl: string;
    let key: string;
    let agentId: string;
    let endpoint: WebhookEndpointWithSecret;

    beforeAll(async () => {
      running = await startWebhookTopology({
        prefix: 'hookeprestart',
        adminToken,
        simTimeScale: 0.002,
        retryBaseMs: RETRY_BASE_MS,
      });
      ({ sql, receiver, topology } = running);
      gatewayUrl = topology.gatewayUrl;
      ({ key } = await createAccount({ url: gatewayUrl, adminToken }, { name: 'Endpoint restart' }));
      const agent = await api<Envelope<{ id: string }>>(gatewayUrl, 'POST', '/v1/agents', {
        key,
        body: { name: 'Plain', start_flow: 'Hi, this is Plain.', end_flow: 'Goodbye!' },
      });
      expect(agent.status, agent.text).toBe(201);
      agentId = agent.body.data.id;
      const created = await api<Envelope<WebhookEndpointWithSecret>>(
        gatewayUrl,
        'POST',
        '/v1/webhook-endpoints',
        {
          key,
          body: { url: `${receiver.url}/endpoint`, events: EVENTS },
        },
      );
      expect(created.status, created.text).toBe(201);
      endpoint = created.body.data;
      // Five processes start at once: on a loaded machine that takes a while.
    }, 180_000);

    afterAll(async () => {
      await running?.stop();
    });

    /** `count` calls to numbers from +14155554000 on, `offset` further. */
    const placeCalls = (count: number, offset: number) =>
      placeCallsTo(gatewayUrl, key, {
        agentId,
        from: FROM,
        numbers: Array.from({ length: count }, (_, i) => `+1415555${String(4000 + offset + i)}`),
      });

    /** The endpoint's deliveries of these calls' events (the call id read from the stored body). */
    const deliveriesOf = (callIds: string[]) =>
      sql<
        DeliveryRow[]
      >`SELECT event_id, event, status, attempt_count, payload->'data'->>'session_id' AS session_id
                           FROM webhook.deliveries
                          WHERE endpoint_id = ${endpoint.id}
                            AND payload->'data'->>'session_id' = ANY(${callIds}::text[])`;

    it('delivers every call event after the restart, each once', async () => {
      // Every first attempt is refused: a retry is scheduled in the table for each event.
      const refusedOnce = new Set<string>();
      receiver.answerWith((_path, headers) => {
        const eventId = String(headers['x-service-event-id']);
        if (refusedOnce.has(eventId)) return { status: 200 };
        refusedOnce.add(eventId);
        return { status: 503 };
      });
      const retrying = await placeCalls(CALLS_BEFORE_KILL, 0);
      await pollUntil(
        () => deliveriesOf(retrying),
        (rows) => rows.length === retrying.length * EVENTS.length && rows.every((r) => r.attempt_count >= 1),
        'deliveries not attempted',
      );
      expect(await topology.kill('webhook')).toBeNull();
      receiver.answerWith(() => ({ status: 200 }));

      // Calls that ring, are answered and end while the service is down: their events wait in the streams.
      const unconsumed = await placeCalls(CALLS_WHILE_DOWN, CALLS_BEFORE_KILL);
      await pollUntil(
        () => sql<{ n: number }[]>`SELECT count(*)::int AS n FROM call.calls
                                  WHERE id = ANY(${unconsumed}::uuid[]) AND ended_at IS NOT NULL`,
        (rows) => rows[0]!.n === unconsumed.length,
        'calls did not end',
      );
      expect(await deliveriesOf(unconsumed)).toHaveLength(0);

      await topology.restart('webhook');
      const all = [...retrying, ...unconsumed];
      const rows = await pollUntil(
        () => deliveriesOf(all),
        (found) =>
          found.length === all.length * EVENTS.length && found.every((r) => r.status === 'succeeded'),
        'not every event delivered after the restart',
      );
      // One delivery per call and event: the restart stored nothing twice.
      const pairs = rows.map((r) => `${r.session_id}/${r.event}`);
      expect(new Set(pairs).size).toBe(all.length * EVENTS.length);
      expect(new Set(rows.map((r) => r.event_id)).size).toBe(rows.length);

      // Past any retry time: a delivery that succeeded is never sent again.
      await delay(RETRY_BASE_MS * 2);
      const perEvent = new Map<string, number>();
      for (const r of receiver.received.filter((x) => x.answered === 200)) {
        expect(signatureVerifies(endpoint.secret, r.body, r.headers['x-service-signature'] as string)).toBe(
          true,
        );
        const id = r.headers['x-service-event-id'] as string;
        perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      }
      expect([...perEvent.keys()].sort()).toEqual(rows.map((r) => r.event_id).sort());
      for (const [id, count] of perEvent) expect(count, `event ${id} received with a 2xx`).toBe(1);
    }, 240_000);
  },
);
