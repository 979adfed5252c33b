import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type BulkRedelivery,
  ENDPOINT_EVENT_KINDS,
  ENDPOINT_EVENT_PAYLOADS,
  type EndpointDelivery,
  type EndpointEventKind,
  type PageOf,
  type WebhookEndpointWithSecret,
} from '@voice/shared';
import { type Exposition, infraModes, parseExposition } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createKey } from '../support/accounts';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { signatureVerifies } from '../support/webhook-receiver';
import { until, webhookLogSuite } from './webhook-support';

const BASE_MS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
const FINAL = ['succeeded', 'failed', 'cancelled'];

/** A receiver that holds every request until told how to answer: deliveries stay in flight. */
async function startHoldingReceiver() {
  const held: ServerResponse[] = [];
  const deliveryIds: string[] = [];
  let answerAtOnce: number | undefined;
  const server = createServer((req, res) => {
    deliveryIds.push(req.headers['x-service-delivery-id'] as string);
    req.resume();
    if (answerAtOnce !== undefined) res.writeHead(answerAtOnce).end();
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveryIds,
    held,
    /** Answers the held requests with `status`, and every later one at once with `later`. */
    release(status: number, later?: number) {
      answerAtOnce = later;
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.each(infraModes())(
  'account webhook endpoints: bulk redelivery, test events, disabling (%s)',
  (mode) => {
    const suite = webhookLogSuite(mode, { retryBaseMs: BASE_MS });
    let sql: postgres.Sql;
    beforeAll(() => {
      sql = postgres(suite.t.databaseUrl, { max: 1, onnotice: () => {} });
    });
    afterAll(async () => {
      await sql?.end({ timeout: 5 });
    });

    const send = <T>(method: string, path: string, body?: unknown, key = suite.acme.key) =>
      api<Envelope<T> & ErrorEnvelope>(suite.t.url, method, path, { key, body });

    async function endpoint(url: string, events: EndpointEventKind[]): Promise<WebhookEndpointWithSecret> {
      const res = await send<WebhookEndpointWithSecret>('POST', '/v1/webhook-endpoints', { url, events });
      expect(res.status, res.text).toBe(201);
      return res.body.data;
    }

    async function log(id: string): Promise<EndpointDelivery[]> {
      const res = await send<PageOf<EndpointDelivery>>(
        'GET',
        `/v1/webhook-endpoints/${id}/deliveries?page_size=100`,
      );
      expect(res.status, res.text).toBe(200);
      return res.body.data.items;
    }

    /** The endpoint's log once it holds `count` deliveries, every one final. */
    const settled = (id: string, count: number) =>
      until(
        `${count} final deliveries of ${id}`,
        async () => {
          const items = await log(id);
          return items.length === count && items.every((d) => FINAL.includes(d.status)) ? items : undefined;
        },
        60_000,
      );

    async function scrape(): Promise<Exposition> {
      const res = await fetch(`${suite.t.url}/metrics`);
      expect(res.status).toBe(200);
      return parseExposition(await res.text());
    }
    const failing = async (target: string) => (await scrape()).sum('webhook_endpoints_failing', { target });

    const gql = async (query: string, variables: Record<string, unknown>) =>
      (await send<never>('POST', '/graphql', { query, variables })).body as unknown as {
        data?: Record<string, Record<string, unknown>>;
        errors?: { extensions?: { code?: string } }[];
      };

    it('redelivers failed events in bulk, once each; the gauge counts the endpoint until it recovers', async () => {
      const broken = `/e500/ep-bulk-${mode}`;
      const hook = await endpoint(`${suite.receiver.url}${broken}`, ['CALL_ENDED']);
      const agentId = await suite.agentWith(undefined);
      const agentsBefore = await failing('agent_webhook');
      const endpointsBefore = await failing('account_endpoint');

      // A test event that fails is never part of a bulk redelivery.
      expect((await send('POST', `/v1/webhook-endpoints/${hook.id}/test`)).status).toBe(201);
      const from = new Date().toISOString();
      for (let i = 0; i < 3; i++) await suite.placeAndFinish(agentId);
      const failed = (await settled(hook.id, 4)).filter((d) => !d.test);
      expect(failed.map((d) => [d.status, d.attempts.length])).toEqual([
        ['failed', 3],
        ['failed', 3],
        ['failed', 3],
      ]);
      expect(await failing('account_endpoint')).toBe(endpointsBefore + 1);
      expect(await failing('agent_webhook')).toBe(agentsBefore);

      const fixed = `/ok/ep-bulk-${mode}`;
      const patched = await send('PATCH', `/v1/webhook-endpoints/${hook.id}`, {
        url: `${suite.receiver.url}${fixed}`,
      });
      expect(patched.status, patched.text).toBe(200);
      const bulkPath = `/v1/webhook-endpoints/${hook.id}/deliveries/redeliver`;
      const to = new Date(Date.now() + 1000).toISOString();
      const first = await send<BulkRedelivery>('POST', bulkPath, { from, to, limit: 2 });
      expect(first.status, first.text).toBe(200);
      expect(first.body.data).toMatchObject({ queued: 2, has_more: true });
      // The other surfaces run the same operation: the third event, then nothing left.
      const viaGraphql = await gql(
        'mutation ($id: ID!, $input: RedeliverFailedInput!) { redeliverFailedWebhookEndpointDeliveries(id: $id, input: $input) { queued hasMore deliveries { redeliveryOf eventId } } }',
        { id: hook.id, input: { from, to } },
      );
      expect(viaGraphql.errors).toBeUndefined();
      expect(viaGraphql.data?.redeliverFailedWebhookEndpointDeliveries).toMatchObject({
        queued: 1,
        hasMore: false,
      });
      const client = createVoiceClient({ url: suite.t.url, apiKey: suite.acme.key });
      expect(await client.webhookEndpoints.redeliverFailed.mutate({ id: hook.id, from, to })).toEqual({
        queued: 0,
        has_more: false,
        deliveries: [],
      });

      const viaGraphqlQueued = (viaGraphql.data?.redeliverFailedWebhookEndpointDeliveries?.deliveries ??
        []) as { redeliveryOf: string }[];
      const queued = [
        ...first.body.data.deliveries,
        ...viaGraphqlQueued.map((d) => ({ redelivery_of: d.redeliveryOf })),
      ];
      expect(queued.map((d) => d.redelivery_of).sort()).toEqual(failed.map((d) => d.id).sort());
      const after = await settled(hook.id, 7);
      expect(after.filter((d) => d.redelivery_of !== null).map((d) => d.status)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
      // Each failed event arrives once at the fixed url, as it was, signed with the endpoint's secret.
      const arrived = suite.receiver.received.filter((r) => r.path === fixed);
      expect(arrived.map((r) => r.headers['x-service-event-id']).sort()).toEqual(
        failed.map((d) => d.event_id).sort(),
      );
      for (const request of arrived) {
        expect(
          signatureVerifies(hook.secret, request.body, request.headers['x-service-signature'] as string),
        ).toBe(true);
        ENDPOINT_EVENT_PAYLOADS.CALL_ENDED.parse(JSON.parse(request.body.toString('utf8')));
      }
      expect(await failing('account_endpoint')).toBe(endpointsBefore);
    });

    it('bulk redelivery: 422 for a bad range, 404 for another account, 403 without calls:write', async () => {
      const hook = await endpoint(`${suite.receiver.url}/ok/ep-bulk-edges-${mode}`, ['CALL_ENDED']);
      const bulkPath = `/v1/webhook-endpoints/${hook.id}/deliveries/redeliver`;
      const now = Date.now();
      const at = (ms: number) => new Date(ms).toISOString();
      const cases: [unknown, (string | number)[]][] = [
        [undefined, ['body']],
        [{ from: at(now), to: at(now - 1000) }, ['body', 'to']],
        [{ from: at(now - 31 * DAY_MS), to: at(now) }, ['body', 'to']],
        [{ from: at(now - DAY_MS), to: at(now), limit: 1001 }, ['body', 'limit']],
        [{ from: at(now - DAY_MS), to: at(now), status: 'succeeded' }, ['body', 'status']],
      ];
      for (const [body, loc] of cases) {
        const res = await send('POST', bulkPath, body);
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(422);
        expect((res.body.detail as { loc: (string | number)[] }[]).map((i) => i.loc)).toContainEqual(loc);
      }
      const range = { from: at(now - 30 * DAY_MS), to: at(now) };
      const empty = await send<BulkRedelivery>('POST', bulkPath, range);
      expect(empty.status, empty.text).toBe(200);
      expect(empty.body.data).toEqual({ queued: 0, has_more: false, deliveries: [] });
      expect((await send('POST', bulkPath, range, suite.other.key)).status).toBe(404);
      const readOnly = await createKey(suite.t, suite.acme.accountId, ['calls:read']);
      expect((await send('POST', bulkPath, range, readOnly)).status).toBe(403);
    });

    it('sends a realistic test sample of each event it subscribes to; 422 for another event', async () => {
      const path = `/ok/ep-samples-${mode}`;
      const hook = await endpoint(`${suite.receiver.url}${path}`, [...ENDPOINT_EVENT_KINDS]);
      for (const event of ENDPOINT_EVENT_KINDS) {
        const res = await send<EndpointDelivery>('POST', `/v1/webhook-endpoints/${hook.id}/test`, { event });
        expect(res.status, res.text).toBe(201);
        expect(res.body.data).toMatchObject({ event, test: true, endpoint_id: hook.id });
      }
      const requests = await until('a sample of each event', () => {
        const got = suite.receiver.received.filter((r) => r.path === path);
        return got.length === ENDPOINT_EVENT_KINDS.length ? got : undefined;
      });
      const bodies = new Map(
        requests.map((r) => {
          const body = JSON.parse(r.body.toString('utf8')) as {
            event: EndpointEventKind;
            data: Record<string, unknown>;
          };
          expect(r.headers['x-service-event']).toBe(body.event);
          expect(signatureVerifies(hook.secret, r.body, r.headers['x-service-signature'] as string)).toBe(
            true,
          );
          // The documented shape of that event (OpenAPI `webhooks`), not a CALL_ENDED in disguise.
          ENDPOINT_EVENT_PAYLOADS[body.event].parse(body);
          return [body.event, body.data] as const;
        }),
      );
      expect([...bodies.keys()].sort()).toEqual([...ENDPOINT_EVENT_KINDS].sort());
      const status = (event: EndpointEventKind) => bodies.get(event)?.status;
      expect(
        ['CALL_RINGING', 'CALL_ANSWERED', 'CALL_ENDED'].map((e) => status(e as EndpointEventKind)),
      ).toEqual(['ringing', 'in_progress', 'completed']);
      for (const call of ['CALL_RINGING', 'CALL_ANSWERED', 'CALL_ENDED'] as const)
        expect(bodies.get(call)?.metadata).toMatchObject({ test: true });
      expect(bodies.get('CALL_RINGING')).toMatchObject({
        ended_at: null,
        transcript: [],
        call_summary: null,
      });
      expect(
        [
          'CAMPAIGN_STARTED',
          'CAMPAIGN_PAUSED',
          'CAMPAIGN_RESUMED',
          'CAMPAIGN_COMPLETED',
          'CAMPAIGN_CANCELLED',
        ].map((e) => status(e as EndpointEventKind)),
      ).toEqual(['running', 'paused', 'running', 'completed', 'cancelled']);
      expect(bodies.get('CONTACT_EXHAUSTED')).toMatchObject({ contact: { data: { test: true } } });

      // Only the endpoint's events; without one, CALL_ENDED whatever its events (as before).
      const narrow = await endpoint(`${suite.receiver.url}/ok/ep-narrow-${mode}`, ['CAMPAIGN_PAUSED']);
      for (const event of ['CALL_RINGING', 'CALL_STARTED', 7]) {
        const res = await send('POST', `/v1/webhook-endpoints/${narrow.id}/test`, { event });
        expect(res.status, res.text).toBe(422);
        expect((res.body.detail as { loc: string[] }[]).map((i) => i.loc)).toContainEqual(['body', 'event']);
      }
      const plain = await send<EndpointDelivery>('POST', `/v1/webhook-endpoints/${narrow.id}/test`);
      expect(plain.status, plain.text).toBe(201);
      expect(plain.body.data.event).toBe('CALL_ENDED');
      const viaGraphql = await gql(
        'mutation ($id: ID!) { sendWebhookEndpointTest(id: $id, event: CAMPAIGN_PAUSED) { event test } }',
        { id: narrow.id },
      );
      expect(viaGraphql.errors).toBeUndefined();
      expect(viaGraphql.data?.sendWebhookEndpointTest).toEqual({ event: 'CAMPAIGN_PAUSED', test: true });
      const refused = await gql(
        'mutation ($id: ID!) { sendWebhookEndpointTest(id: $id, event: CALL_ENDED) { event } }',
        {
          id: narrow.id,
        },
      );
      expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      const client = createVoiceClient({ url: suite.t.url, apiKey: suite.acme.key });
      expect(
        await client.webhookEndpoints.sendTest.mutate({ id: narrow.id, event: 'CAMPAIGN_PAUSED' }),
      ).toMatchObject({
        event: 'CAMPAIGN_PAUSED',
      });
    });

    it('disabling cancels what is queued and in flight: nothing is sent again, enabling does not resurrect it', async () => {
      const receiver = await startHoldingReceiver();
      try {
        const hook = await endpoint(`${receiver.url}/held`, ['CALL_ENDED']);
        const testPath = `/v1/webhook-endpoints/${hook.id}/test`;
        // Six deliveries to one host: four in flight (the per-host bound), two queued behind them.
        const ids: string[] = [];
        for (let i = 0; i < 6; i++) ids.push((await send<EndpointDelivery>('POST', testPath)).body.data.id);
        await until('four requests in flight', () => (receiver.held.length === 4 ? true : undefined));
        const inFlight = [...receiver.deliveryIds];

        const disabled = await send('PATCH', `/v1/webhook-endpoints/${hook.id}`, { enabled: false });
        expect(disabled.status, disabled.text).toBe(200);
        const cancelledAtOnce = await log(hook.id);
        expect(cancelledAtOnce.map((d) => d.status)).toEqual(Array(6).fill('cancelled'));
        for (const d of cancelledAtOnce) expect(d).toMatchObject({ next_attempt_at: null });

        // The receiver now answers the four with a 500: each attempt is logged, none is retried.
        receiver.release(500, 200);
        const logged = await until('the four attempts in the log', async () => {
          const items = await log(hook.id);
          return items.filter((d) => d.attempts.length === 1).length === 4 ? items : undefined;
        });
        for (const d of logged) {
          expect(d.status).toBe('cancelled');
          expect(d.completed_at).not.toBeNull();
          expect(d.attempts.map((a) => a.status_code)).toEqual(inFlight.includes(d.id) ? [500] : []);
        }

        // Were they still claimable, these would be due first.
        await sql`UPDATE webhook.deliveries SET next_attempt_at = now() - interval '1 minute' WHERE endpoint_id = ${hook.id}`;
        const enabled = await send('PATCH', `/v1/webhook-endpoints/${hook.id}`, { enabled: true });
        expect(enabled.status, enabled.text).toBe(200);
        const fresh = (await send<EndpointDelivery>('POST', testPath)).body.data.id;
        const again = ids[5]!;
        const redelivered = await send<EndpointDelivery>(
          'POST',
          `/v1/webhook-endpoints/${hook.id}/deliveries/${again}/redeliver`,
        );
        expect(redelivered.status, redelivered.text).toBe(201);
        const final = await settled(hook.id, 8);
        expect(final.find((d) => d.id === fresh)?.status).toBe('succeeded');
        expect(final.find((d) => d.id === redelivered.body.data.id)?.status).toBe('succeeded');
        expect(
          final
            .filter((d) => d.status === 'cancelled')
            .map((d) => d.id)
            .sort(),
        ).toEqual([...ids].sort());
        // Every delivery was sent at most once; the cancelled ones only while they were in flight.
        expect([...receiver.deliveryIds].sort()).toEqual(
          [...inFlight, fresh, redelivered.body.data.id].sort(),
        );
      } finally {
        receiver.release(500);
        await receiver.close();
      }
    });

    it('deleting removes what is queued with the log: nothing more is sent', async () => {
      const receiver = await startHoldingReceiver();
      try {
        const hook = await endpoint(`${receiver.url}/held`, ['CALL_ENDED']);
        for (let i = 0; i < 5; i++)
          expect((await send('POST', `/v1/webhook-endpoints/${hook.id}/test`)).status).toBe(201);
        await until('four requests in flight', () => (receiver.held.length === 4 ? true : undefined));
        expect((await send('DELETE', `/v1/webhook-endpoints/${hook.id}`)).status).toBe(204);
        expect((await send('GET', `/v1/webhook-endpoints/${hook.id}/deliveries`)).status).toBe(404);
        receiver.release(500, 200);
        // A new endpoint on the same host receives its event: the worker is past the deleted ones.
        const next = await endpoint(`${receiver.url}/next`, ['CALL_ENDED']);
        const sent = (await send<EndpointDelivery>('POST', `/v1/webhook-endpoints/${next.id}/test`)).body.data
          .id;
        await settled(next.id, 1);
        expect(receiver.deliveryIds).toHaveLength(5);
        expect(receiver.deliveryIds[4]).toBe(sent);
        const [left] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM webhook.deliveries WHERE endpoint_id = ${hook.id}`;
        expect(left?.n).toBe(0);
      } finally {
        receiver.release(500);
        await receiver.close();
      }
    });
  },
);
