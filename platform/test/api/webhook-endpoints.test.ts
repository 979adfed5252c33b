import { createHmac } from 'node:crypto';
import {
  type Call,
  type Campaign,
  ENDPOINT_EVENT_PAYLOADS,
  type EndpointDelivery,
  type EndpointEventKind,
  type PageOf,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createKey } from '../support/accounts';
import { placeCallAndWait } from '../support/calls';
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  signatureVerifies as verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver';
import { type CampaignSuite, campaignApi, campaignSuite, completingNumbers, FROM } from './campaigns-support';

/** A completed call takes well under a second of wall time. */
const SIM_TIME_SCALE = 0.004;

interface Body {
  event: EndpointEventKind;
  event_id: string;
  occurred_at: string;
  account_id: string;
  data: Record<string, unknown>;
}

const bodyOf = (request: ReceivedWebhook): Body => JSON.parse(request.body.toString('utf8')) as Body;

/** The `v1=` signatures of X-Service-Signature-Timestamped, checked against each secret in order. */
function stampedVerifies(request: ReceivedWebhook, secrets: string[]): boolean {
  const header = request.headers['x-service-signature-timestamped'] as string;
  const [t, ...macs] = header.split(',');
  const ts = t!.replace(/^t=/, '');
  if (macs.length !== secrets.length) return false;
  return secrets.every(
    (secret, i) =>
      macs[i] === `v1=${createHmac('sha256', secret).update(`${ts}.`).update(request.body).digest('hex')}`,
  );
}

describe.each(infraModes())('account webhook endpoints (%s)', (mode) => {
  const suite = campaignSuite(mode, SIM_TIME_SCALE);
  let receiver: WebhookReceiver;
  let api: CampaignSuite['api'];
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    ({ api } = suite);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  async function endpoint(path: string, events: EndpointEventKind[]): Promise<WebhookEndpointWithSecret> {
    const res = await api.send<WebhookEndpointWithSecret>('POST', '/v1/webhook-endpoints', {
      url: `${receiver.url}${path}`,
      events,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  }

  /** Polls the receiver until `path` got `n` requests; answers them. */
  async function received(path: string, n: number, timeoutMs = 60_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = receiver.requestsTo(path);
      if (got.length >= n) return got;
      if (Date.now() > deadline) throw new Error(`${path} got ${got.length} of ${n} requests`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Every delivery of the endpoint (its log, all pages) once none is pending or delivering. */
  async function settledLog(id: string): Promise<EndpointDelivery[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await api.send<PageOf<EndpointDelivery>>(
        'GET',
        `/v1/webhook-endpoints/${id}/deliveries?page_size=100`,
      );
      expect(res.status, res.text).toBe(200);
      const items = res.body.data.items;
      if (items.every((d) => d.status === 'succeeded' || d.status === 'failed')) return items;
      if (Date.now() > deadline) throw new Error(`deliveries of ${id} never settled`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  function expectEnvelope(request: ReceivedWebhook, secret: string, accountId: string): Body {
    const body = bodyOf(request);
    expect(request.headers['x-service-event']).toBe(body.event);
    expect(request.headers['x-service-event-id']).toBe(body.event_id);
    expect(verifies(secret, request.body, request.headers['x-service-signature'] as string)).toBe(true);
    expect(stampedVerifies(request, [secret])).toBe(true);
    expect(body.account_id).toBe(accountId);
    // The documented envelope and data of the event (OpenAPI `webhooks`).
    ENDPOINT_EVENT_PAYLOADS[body.event].parse(body);
    return body;
  }

  it('creates, lists, gets, updates and deletes; the secret is shown once; bad input is a 422', async () => {
    const created = await endpoint('/ok/crud', ['CALL_ENDED', 'CALL_ENDED', 'CAMPAIGN_COMPLETED']);
    expect(created).toMatchObject({
      url: `${receiver.url}/ok/crud`,
      events: ['CALL_ENDED', 'CAMPAIGN_COMPLETED'],
      enabled: true,
      description: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const got = await api.send<WebhookEndpoint>('GET', `/v1/webhook-endpoints/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).not.toHaveProperty('secret');
    const { secret: _, ...shown } = created;
    expect(got.body.data).toEqual(shown);

    const listed = await api.send<PageOf<WebhookEndpoint>>('GET', '/v1/webhook-endpoints?page_size=100');
    expect(listed.status).toBe(200);
    expect(listed.body.data.items.map((e) => e.id)).toContain(created.id);
    expect(JSON.stringify(listed.body.data)).not.toContain(created.secret);

    const updated = await api.send<WebhookEndpoint>('PATCH', `/v1/webhook-endpoints/${created.id}`, {
      events: ['CAMPAIGN_STARTED'],
      enabled: false,
      description: 'CRM sync',
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({
      events: ['CAMPAIGN_STARTED'],
      enabled: false,
      description: 'CRM sync',
    });

    for (const [body, loc] of [
      [{ url: 'ftp://example.com/x', events: ['CALL_ENDED'] }, 'url'],
      [{ url: 'not a url', events: ['CALL_ENDED'] }, 'url'],
      [{ url: 'http://0.0.0.0/hook', events: ['CALL_ENDED'] }, 'url'],
      [{ url: `${receiver.url}/ok`, events: ['CALL_EXPLODED'] }, 'events'],
      [{ url: `${receiver.url}/ok`, events: [] }, 'events'],
      [{ url: `${receiver.url}/ok` }, 'events'],
    ] as const) {
      const res = await api.send('POST', '/v1/webhook-endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(res.body), JSON.stringify(body)).toContain(`"${loc}"`);
    }
    const badPatch = await api.send('PATCH', `/v1/webhook-endpoints/${created.id}`, {
      url: 'http://0.0.0.0/x',
    });
    expect(badPatch.status).toBe(422);

    // Another account's endpoint is not found, whatever it asks.
    const other = campaignApi(suite.t.url, suite.other.key);
    for (const [method, path] of [
      ['GET', `/v1/webhook-endpoints/${created.id}`],
      ['PATCH', `/v1/webhook-endpoints/${created.id}`],
      ['DELETE', `/v1/webhook-endpoints/${created.id}`],
      ['POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`],
      ['POST', `/v1/webhook-endpoints/${created.id}/test`],
      ['GET', `/v1/webhook-endpoints/${created.id}/deliveries`],
    ] as const) {
      const res = await other.send(method, path, method === 'PATCH' ? { enabled: true } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail).toBe('Webhook endpoint not found');
    }
    const otherList = await other.send<PageOf<WebhookEndpoint>>('GET', '/v1/webhook-endpoints');
    expect(otherList.body.data.items.map((e) => e.id)).not.toContain(created.id);

    // Reading takes calls:read, changing calls:write.
    const reader = await createKey(suite.t, suite.acme.accountId, ['calls:read']);
    const asReader = campaignApi(suite.t.url, reader);
    expect((await asReader.send('GET', `/v1/webhook-endpoints/${created.id}`)).status).toBe(200);
    expect(
      (
        await asReader.send('POST', '/v1/webhook-endpoints', {
          url: `${receiver.url}/ok`,
          events: ['CALL_ENDED'],
        })
      ).status,
    ).toBe(403);

    const deleted = await api.send('DELETE', `/v1/webhook-endpoints/${created.id}`);
    expect(deleted.status).toBe(204);
    expect((await api.send('GET', `/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
  });

  it('delivers CALL_RINGING, CALL_ANSWERED and CALL_ENDED of a call once each, signed', async () => {
    const path = `/ok/calls-${mode}`;
    const hook = await endpoint(path, ['CALL_RINGING', 'CALL_ANSWERED', 'CALL_ENDED']);
    // Subscribed to nothing a call sends: it must receive nothing of it.
    const quiet = await endpoint(`/ok/quiet-${mode}`, ['CAMPAIGN_CANCELLED']);
    const call: Call = await placeCallAndWait(suite.t.url, suite.acme.key, {
      agent_id: suite.agentId,
      source_number: FROM,
      phone_number: '+14155557123',
    });
    const requests = await received(path, 3);
    const log = await settledLog(hook.id);
    expect(log).toHaveLength(3);
    expect(log.every((d) => d.status === 'succeeded' && d.attempts.length === 1)).toBe(true);
    expect(receiver.requestsTo(path)).toHaveLength(3);
    const bodies = requests.map((r) => expectEnvelope(r, hook.secret, suite.acme.accountId));
    expect(bodies.map((b) => b.event).sort()).toEqual(['CALL_ANSWERED', 'CALL_ENDED', 'CALL_RINGING']);
    expect(new Set(bodies.map((b) => b.event_id)).size).toBe(3);
    const byEvent = Object.fromEntries(bodies.map((b) => [b.event, b.data]));
    for (const data of Object.values(byEvent)) expect(data.session_id).toBe(call.id);
    expect(byEvent.CALL_RINGING?.status).toBe('ringing');
    expect(byEvent.CALL_ANSWERED?.status).toBe('in_progress');
    expect(byEvent.CALL_ENDED).toMatchObject({
      status: 'completed',
      duration_seconds: call.duration_seconds,
    });
    expect(receiver.requestsTo(`/ok/quiet-${mode}`)).toHaveLength(0);
    expect(await settledLog(quiet.id)).toHaveLength(0);
  });

  it("delivers a campaign's started, paused, resumed, completed and cancelled events once each", async () => {
    const path = `/ok/campaigns-${mode}`;
    const hook = await endpoint(path, [
      'CAMPAIGN_STARTED',
      'CAMPAIGN_PAUSED',
      'CAMPAIGN_RESUMED',
      'CAMPAIGN_COMPLETED',
      'CAMPAIGN_CANCELLED',
    ]);
    const created = await api.create(
      suite.settings({
        contacts: suite.contactsOf(completingNumbers(6, '+1415557')),
        max_concurrent_calls: 1,
      }),
    );
    await api.waitFor(created.id, (c) => c.counts.in_progress > 0);
    expect((await api.send('POST', `/v1/campaigns/${created.id}/pause`)).status).toBe(200);
    expect((await api.send('POST', `/v1/campaigns/${created.id}/resume`)).status).toBe(200);
    await api.waitFor(created.id, (c) => c.status === 'completed');

    const cancelled = await api.create(
      suite.settings({
        contacts: suite.contactsOf(completingNumbers(3, '+1415558')),
        start_at: '2999-01-01T00:00:00Z',
      }),
    );
    await api.waitFor(cancelled.id, (c) => c.status === 'scheduled');
    expect((await api.send('POST', `/v1/campaigns/${cancelled.id}/cancel`)).status).toBe(200);

    const requests = await received(path, 5);
    const log = await settledLog(hook.id);
    expect(log).toHaveLength(5);
    expect(receiver.requestsTo(path)).toHaveLength(5);
    const bodies = requests.map((r) => expectEnvelope(r, hook.secret, suite.acme.accountId));
    const of = (id: string) =>
      bodies
        .filter((b) => (b.data as unknown as Campaign).id === id)
        .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at))
        .map((b) => [b.event, (b.data as unknown as Campaign).status]);
    expect(of(created.id)).toEqual([
      ['CAMPAIGN_STARTED', 'running'],
      ['CAMPAIGN_PAUSED', 'paused'],
      ['CAMPAIGN_RESUMED', 'running'],
      ['CAMPAIGN_COMPLETED', 'completed'],
    ]);
    expect(of(cancelled.id)).toEqual([['CAMPAIGN_CANCELLED', 'cancelled']]);
  });

  it("sends CONTACT_EXHAUSTED once when a contact's retries are spent", async () => {
    const path = `/ok/exhausted-${mode}`;
    const hook = await endpoint(path, ['CONTACT_EXHAUSTED']);
    // ...0001 never answers: dialed 1 + max_retries times, then exhausted; the others complete.
    const numbers = ['+14155590001', ...completingNumbers(2, '+1415559')];
    const created = await api.create(
      suite.settings({
        contacts: suite.contactsOf(numbers),
        retry_config: { on_statuses: ['no_answer'], max_retries: 1, interval_seconds: 1 },
      }),
    );
    await api.waitFor(created.id, (c) => c.status === 'completed');
    const [request] = await received(path, 1);
    const log = await settledLog(hook.id);
    expect(log).toHaveLength(1);
    const body = expectEnvelope(request!, hook.secret, suite.acme.accountId);
    expect(body.data).toMatchObject({
      campaign_id: created.id,
      contact: { phone_number: '+14155590001', state: 'no_answer', attempts: 2 },
    });
    expect((body.data.contact as { call_ids: string[] }).call_ids).toHaveLength(2);
  });

  it('rotates the secret: both sign for the overlap; redelivers and sends test events', async () => {
    const path = `/ok/rotation-${mode}`;
    const hook = await endpoint(path, ['CALL_ENDED']);
    const first = await api.send<EndpointDelivery>('POST', `/v1/webhook-endpoints/${hook.id}/test`);
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toMatchObject({ endpoint_id: hook.id, event: 'CALL_ENDED', test: true });
    const [before] = await received(path, 1);
    expect(stampedVerifies(before!, [hook.secret])).toBe(true);
    const sample = expectEnvelope(before!, hook.secret, suite.acme.accountId);
    expect(sample.data.metadata).toMatchObject({ test: true });

    const rotated = await api.send<WebhookEndpointWithSecret>(
      'POST',
      `/v1/webhook-endpoints/${hook.id}/rotate-secret`,
    );
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.data.secret;
    expect(fresh).not.toBe(hook.secret);
    const expires = Date.parse(rotated.body.data.previous_secret_expires_at!);
    expect(Math.abs(expires - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
    expect(rotated.body.data.secret_rotated_at).not.toBeNull();

    // Redelivery of the first event: same event and body, new delivery, signed with both secrets.
    const again = await api.send<EndpointDelivery>(
      'POST',
      `/v1/webhook-endpoints/${hook.id}/deliveries/${first.body.data.id}/redeliver`,
    );
    expect(again.status, again.text).toBe(201);
    expect(again.body.data).toMatchObject({
      redelivery_of: first.body.data.id,
      event_id: first.body.data.event_id,
    });
    const [, after] = await received(path, 2);
    expect(after!.body.equals(before!.body)).toBe(true);
    expect(after!.headers['x-service-delivery-id']).toBe(again.body.data.id);
    expect(verifies(fresh, after!.body, after!.headers['x-service-signature'] as string)).toBe(true);
    expect(verifies(hook.secret, after!.body, after!.headers['x-service-signature'] as string)).toBe(false);
    expect(stampedVerifies(after!, [fresh, hook.secret])).toBe(true);

    // Once the overlap is over, only the new secret signs.
    await suite.sql`UPDATE webhook.endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = ${hook.id}`;
    expect((await api.send('POST', `/v1/webhook-endpoints/${hook.id}/test`)).status).toBe(201);
    const [, , late] = await received(path, 3);
    expect(stampedVerifies(late!, [fresh])).toBe(true);
    const shown = await api.send<WebhookEndpoint>('GET', `/v1/webhook-endpoints/${hook.id}`);
    expect(shown.body.data.previous_secret_expires_at).toBeNull();

    const log = await settledLog(hook.id);
    expect(log.map((d) => d.id)).toContain(again.body.data.id);
    expect(log).toHaveLength(3);
    const missing = await api.send(
      'POST',
      `/v1/webhook-endpoints/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
    );
    expect(missing.status).toBe(404);
  });

  it('serves the endpoints over GraphQL and tRPC', async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) =>
      (await api.send<never>('POST', '/graphql', { query, variables })).body as unknown as {
        data?: Record<string, Record<string, unknown>>;
        errors?: unknown[];
      };
    const created = await gql(
      'mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id secret events } }',
      { input: { url: `${receiver.url}/ok/gql`, events: ['CAMPAIGN_PAUSED'] } },
    );
    expect(created.errors).toBeUndefined();
    const id = created.data?.createWebhookEndpoint?.id as string;
    expect(created.data?.createWebhookEndpoint).toMatchObject({ events: ['CAMPAIGN_PAUSED'] });
    const read = await gql('query ($id: ID!) { webhookEndpoint(id: $id) { id enabled url } }', { id });
    expect(read.data?.webhookEndpoint).toEqual({ id, enabled: true, url: `${receiver.url}/ok/gql` });

    const client = createVoiceClient({ url: suite.t.url, apiKey: suite.acme.key });
    expect(await client.webhookEndpoints.get.query({ id })).toMatchObject({
      id,
      events: ['CAMPAIGN_PAUSED'],
    });
    const rotated = await client.webhookEndpoints.rotateSecret.mutate({ id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.previous_secret_expires_at).not.toBeNull();
    expect(await client.webhookEndpoints.delete.mutate({ id })).toEqual({ deleted: true });
  });
});
