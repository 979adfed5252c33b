import type { WebhookDelivery } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKey } from '../support/accounts';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { CallEndedBody, Iso, type ReceivedWebhook, signatureVerifies } from '../support/webhook-receiver';
import { listDeliveries as listLog, webhookLogSuite } from './webhook-support';

const SECRET = 'log-test-secret-0123456789abcdef';
const NEW_SECRET = 'rotated-secret-0123456789abcdef';
const BASE_MS = 100;

/** A test event as a receiver sees it: a CALL_ENDED like any other, marked as a test, with no recording. */
const TestEventBody = CallEndedBody.extend({
  data: CallEndedBody.shape.data.extend({
    session_id: z.uuid(),
    status: z.literal('completed'),
    transcript: CallEndedBody.shape.data.shape.transcript.min(1),
    recording_url: z.literal(''),
    metadata: z.object({ test: z.literal(true) }),
  }),
});

describe.each(infraModes())('webhook delivery log, redeliver and test event (%s)', (mode) => {
  const suite = webhookLogSuite(mode, { retryBaseMs: BASE_MS });
  const { deliveriesPath, agentWith, placeAndFinish, settledLog } = suite;
  const listDeliveries = (agentId: string, query = '') =>
    listLog(suite.t.url, suite.acme.key, agentId, query);

  it('lists each delivery with its attempts, newest first, in the page wrapper', async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/e500/log/${mode}`, secret: SECRET });
    const first = await placeAndFinish(agentId);
    await settledLog(agentId, 1);
    // A fixed endpoint: the second call's delivery succeeds at once.
    const patched = await api(suite.t.url, 'PATCH', `/v1/agents/${agentId}`, {
      key: suite.acme.key,
      body: { webhook_config: { url: `${suite.receiver.url}/ok/log/${mode}` } },
    });
    expect(patched.status, patched.text).toBe(200);
    const second = await placeAndFinish(agentId);
    const [newest, oldest] = (await settledLog(agentId, 2)) as [WebhookDelivery, WebhookDelivery];

    expect(newest).toMatchObject({
      agent_id: agentId,
      event: 'CALL_ENDED',
      event_id: second.id,
      session_id: second.session_id,
      url: `${suite.receiver.url}/ok/log/${mode}`,
      status: 'succeeded',
      next_attempt_at: null,
      redelivery_of: null,
      test: false,
    });
    expect(newest.attempts).toHaveLength(1);
    expect(newest.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, succeeded: true });
    expect(Iso.safeParse(newest.attempts[0]!.started_at).success).toBe(true);
    expect(newest.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Iso.safeParse(newest.completed_at).success).toBe(true);
    expect(JSON.stringify(newest)).not.toContain(SECRET);

    expect(oldest).toMatchObject({
      event_id: first.id,
      status: 'failed',
      url: `${suite.receiver.url}/e500/log/${mode}`,
    });
    expect(oldest.attempts.map((a) => [a.attempt, a.status_code, a.succeeded])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 500, false],
    ]);
    // Attempts are logged as they happened: each one after the previous, by at least the backoff.
    const starts = oldest.attempts.map((a) => Date.parse(a.started_at));
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(BASE_MS);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(BASE_MS * 2);

    const paged = await listDeliveries(agentId, '?page=2&page_size=1');
    expect(paged).toMatchObject({ page: 2, page_size: 1, total: 2, total_pages: 2, has_more: false });
    expect(paged.items.map((d) => d.id)).toEqual([oldest.id]);
    const past = await listDeliveries(agentId, '?page=9&page_size=1');
    expect(past).toMatchObject({ items: [], total: 2, has_more: false });
  });

  it('redelivers a failed event to the fixed endpoint: same event id and body, new delivery id', async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/e500/redeliver/${mode}`, secret: SECRET });
    const call = await placeAndFinish(agentId);
    const [failed] = (await settledLog(agentId, 1)) as [WebhookDelivery];
    expect(failed.status).toBe('failed');
    const [originalRequest] = suite.receiver.requestsTo(`/e500/redeliver/${mode}`) as [ReceivedWebhook];

    const fixedPath = `/ok/redeliver/${mode}`;
    const patched = await api(suite.t.url, 'PATCH', `/v1/agents/${agentId}`, {
      key: suite.acme.key,
      body: { webhook_config: { url: `${suite.receiver.url}${fixedPath}`, secret: NEW_SECRET } },
    });
    expect(patched.status, patched.text).toBe(200);

    const res = await api<Envelope<WebhookDelivery>>(
      suite.t.url,
      'POST',
      `${deliveriesPath(agentId)}/${failed.id}/redeliver`,
      { key: suite.acme.key },
    );
    expect(res.status, res.text).toBe(201);
    const redelivery = res.body.data;
    expect(redelivery).toMatchObject({
      event_id: call.id,
      session_id: call.session_id,
      redelivery_of: failed.id,
      url: `${suite.receiver.url}${fixedPath}`,
      test: false,
    });
    expect(redelivery.id).not.toBe(failed.id);
    expect(['pending', 'delivering', 'succeeded']).toContain(redelivery.status);

    const [newest] = (await settledLog(agentId, 2)) as [WebhookDelivery];
    expect(newest).toMatchObject({ id: redelivery.id, status: 'succeeded' });
    expect(newest.attempts).toHaveLength(1);
    const [request] = suite.receiver.requestsTo(fixedPath) as [ReceivedWebhook];
    expect(suite.receiver.requestsTo(fixedPath)).toHaveLength(1);
    expect(request.headers['x-service-event-id']).toBe(call.id);
    expect(request.headers['x-service-delivery-id']).toBe(redelivery.id);
    expect(request.body.equals(originalRequest.body)).toBe(true);
    expect(
      signatureVerifies(NEW_SECRET, request.body, request.headers['x-service-signature'] as string),
    ).toBe(true);
  });

  it('sends a signed test event built for the agent, marked test in data.metadata', async () => {
    const path = `/ok/test-event/${mode}`;
    const agentId = await agentWith({ url: `${suite.receiver.url}${path}`, secret: SECRET });
    const res = await api<Envelope<WebhookDelivery>>(
      suite.t.url,
      'POST',
      `/v1/agents/${agentId}/webhook-test`,
      {
        key: suite.acme.key,
      },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ agent_id: agentId, test: true, redelivery_of: null });

    const [delivery] = (await settledLog(agentId, 1)) as [WebhookDelivery];
    expect(delivery).toMatchObject({ id: res.body.data.id, status: 'succeeded', test: true });
    const [request] = suite.receiver.requestsTo(path) as [ReceivedWebhook];
    expect(suite.receiver.requestsTo(path)).toHaveLength(1);
    expect(request.headers['x-service-event']).toBe('CALL_ENDED');
    expect(request.headers['x-service-event-id']).toBe(delivery.event_id);
    expect(request.headers['x-service-delivery-id']).toBe(delivery.id);
    expect(signatureVerifies(SECRET, request.body, request.headers['x-service-signature'] as string)).toBe(
      true,
    );
    const body = TestEventBody.parse(JSON.parse(request.body.toString('utf8')));
    expect(body.data).toMatchObject({
      agent_id: agentId,
      agent_type: 'support',
      session_id: delivery.session_id,
    });
    expect(body.data.transcript[0]!.content).toBe('Hello, this is Logged from Acme.');
    // No call was placed for it.
    const calls = await api<Envelope<{ total: number }>>(
      suite.t.url,
      'GET',
      `/v1/calls?agent_id=${agentId}`,
      {
        key: suite.acme.key,
      },
    );
    expect(calls.body.data.total).toBe(0);
  });

  it('answers 409 for redeliver and test when the agent has no webhook', async () => {
    const agentId = await agentWith(undefined);
    const test = await api<ErrorEnvelope>(suite.t.url, 'POST', `/v1/agents/${agentId}/webhook-test`, {
      key: suite.acme.key,
    });
    expect(test.status, test.text).toBe(409);
    expect(test.body.detail).toMatch(/webhook_config/);
    const list = await listDeliveries(agentId);
    expect(list).toMatchObject({ items: [], total: 0 });
  });

  it("answers 404 for another account's agent or delivery, and for a delivery of another agent", async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/ok/tenancy/${mode}` });
    const sent = await api<Envelope<WebhookDelivery>>(
      suite.t.url,
      'POST',
      `/v1/agents/${agentId}/webhook-test`,
      {
        key: suite.acme.key,
      },
    );
    expect(sent.status).toBe(201);
    const deliveryId = sent.body.data.id;

    for (const [method, path] of [
      ['GET', deliveriesPath(agentId)],
      ['POST', `${deliveriesPath(agentId)}/${deliveryId}/redeliver`],
      ['POST', `/v1/agents/${agentId}/webhook-test`],
    ] as const) {
      const res = await api<ErrorEnvelope>(suite.t.url, method, path, { key: suite.other.key });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail).toBe('Agent not found');
    }
    // Another account's agent of its own, naming Acme's delivery: still not found.
    const theirs = await agentWith({ url: `${suite.receiver.url}/ok/theirs/${mode}` }, suite.other.key);
    const crossed = await api<ErrorEnvelope>(
      suite.t.url,
      'POST',
      `${deliveriesPath(theirs)}/${deliveryId}/redeliver`,
      {
        key: suite.other.key,
      },
    );
    expect(crossed.status).toBe(404);
    expect(crossed.body.detail).toBe('Webhook delivery not found');
    // Acme's own other agent cannot reach this agent's delivery either.
    const sibling = await agentWith({ url: `${suite.receiver.url}/ok/sibling/${mode}` });
    const wrongAgent = await api<ErrorEnvelope>(
      suite.t.url,
      'POST',
      `${deliveriesPath(sibling)}/${deliveryId}/redeliver`,
      { key: suite.acme.key },
    );
    expect(wrongAgent.status).toBe(404);
    const malformed = await api<ErrorEnvelope>(
      suite.t.url,
      'POST',
      `${deliveriesPath(agentId)}/not-a-uuid/redeliver`,
      {
        key: suite.acme.key,
      },
    );
    expect(malformed.status).toBe(422);
  });

  it('takes agents:read to list and agents:write to redeliver or test', async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/ok/scopes/${mode}` });
    const readOnly = await createKey(suite.t, suite.acme.accountId, ['agents:read']);
    const callsOnly = await createKey(suite.t, suite.acme.accountId, ['calls:read', 'calls:write']);
    expect((await api(suite.t.url, 'GET', deliveriesPath(agentId), { key: readOnly })).status).toBe(200);
    expect((await api(suite.t.url, 'GET', deliveriesPath(agentId), { key: callsOnly })).status).toBe(403);
    expect(
      (await api(suite.t.url, 'POST', `/v1/agents/${agentId}/webhook-test`, { key: readOnly })).status,
    ).toBe(403);
    expect((await api(suite.t.url, 'GET', deliveriesPath(agentId))).status).toBe(401);
    const nothingSent = await listDeliveries(agentId);
    expect(nothingSent.total).toBe(0);
  });
});
