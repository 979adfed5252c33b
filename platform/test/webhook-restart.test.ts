import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { infraModes } from '@voice/shared/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from './support/accounts';
import { placeCalls as placeCallsTo } from './support/calls';
import { api, type Envelope } from './support/http';
import type { NatsTopology } from './support/nats-topology';
import { pollUntil } from './support/poll';
import type { WebhookReceiver } from './support/webhook-receiver';
import { startWebhookTopology, type WebhookTopology } from './support/webhook-topology';

const FROM = '+14155550100';
const SECRET = 'restart-secret-0123456789abcdef';
/** Long enough that the kill lands between a delivery's first attempt and its retry. */
const RETRY_BASE_MS = 2000;
const CALLS_BEFORE_KILL = 5;
const CALLS_WHILE_DOWN = 5;

interface DeliveryRow {
  event_id: string;
  status: string;
  attempt_count: number;
}

/**
 * The webhook service as its own process on NATS + PostgreSQL, killed with deliveries pending: some
 * waiting for a retry in its table, others not yet consumed from the stream (their calls ended while
 * it was down). After a restart every event is delivered, and none that succeeded is sent again.
 */
describe.runIf(infraModes().includes('nats'))(
  'webhook service kill -9 with deliveries pending (NATS + PostgreSQL)',
  () => {
    const adminToken = `admin-${randomBytes(16).toString('hex')}`;
    let running: WebhookTopology | undefined;
    let sql: postgres.Sql;
    let receiver: WebhookReceiver;
    let topology: NatsTopology;
    let gatewayUrl: string;
    let key: string;
    let agentId: string;

    beforeAll(async () => {
      running = await startWebhookTopology({
        prefix: 'hookrestart',
        adminToken,
        simTimeScale: 0.002,
        retryBaseMs: RETRY_BASE_MS,
      });
      ({ sql, receiver, topology } = running);
      gatewayUrl = topology.gatewayUrl;
      ({ key } = await createAccount({ url: gatewayUrl, adminToken }, { name: 'Hook restart' }));
      const created = await api<Envelope<{ id: string }>>(gatewayUrl, 'POST', '/v1/agents', {
        key,
        body: {
          name: 'Hooked',
          start_flow: 'Hi, this is Hooked.',
          end_flow: 'Goodbye!',
          webhook_config: { url: `${receiver.url}/hook`, secret: SECRET },
        },
      });
      expect(created.status, created.text).toBe(201);
      agentId = created.body.data.id;
      // Four processes start at once: on a loaded machine that takes a while.
    }, 180_000);

    afterAll(async () => {
      await running?.stop();
    });

    /** `count` calls to numbers from +14155553000 on, `offset` further. */
    const placeCalls = (count: number, offset: number) =>
      placeCallsTo(gatewayUrl, key, {
        agentId,
        from: FROM,
        numbers: Array.from({ length: count }, (_, i) => `+1415555${String(3000 + offset + i)}`),
      });

    const deliveriesOf = (eventIds: string[]) =>
      sql<DeliveryRow[]>`SELECT event_id, status, attempt_count FROM webhook.deliveries
                        WHERE event_id = ANY(${eventIds}::uuid[])`;

    it('delivers every event after the restart, and none twice', async () => {
      // The receiver is down for maintenance: every first attempt fails and a retry is scheduled. Only
      // the first: a retry that comes before the kill (a loaded machine can take longer than the
      // retry delay to get there) succeeds, as it would once maintenance ended.
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
        // Refused once each: waiting for the retry (or, on a slow run, already retried).
        (rows) => rows.length === retrying.length && rows.every((r) => r.attempt_count >= 1),
        'deliveries not attempted',
      );
      expect(await topology.kill('webhook')).toBeNull();
      receiver.answerWith(() => ({ status: 200 }));

      // Calls that end while the service is down: their CALL_ENDED waits in the stream.
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
        (found) => found.length === all.length && found.every((r) => r.status === 'succeeded'),
        'not every event delivered after the restart',
      );
      // One delivery per event: the restart stored nothing twice.
      expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(all));
      for (const row of rows) {
        expect(row.attempt_count).toBe(retrying.includes(row.event_id) ? 2 : 1);
      }

      // Past any retry time: a delivery that succeeded is never sent again.
      await delay(RETRY_BASE_MS * 2);
      const successes = receiver.received.filter((r) => r.answered === 200);
      const perEvent = new Map<string, number>();
      for (const r of successes) {
        const id = r.headers['x-service-event-id'] as string;
        perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      }
      expect([...perEvent.keys()].sort()).toEqual([...all].sort());
      for (const [id, count] of perEvent) expect(count, `event ${id} received with a 2xx`).toBe(1);
      const failures = receiver.received.filter((r) => r.answered === 503);
      expect(failures.map((r) => r.headers['x-service-event-id']).sort()).toEqual([...retrying].sort());
    }, 180_000);
  },
);
