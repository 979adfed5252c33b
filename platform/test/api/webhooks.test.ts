import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AGENT,
  AppError,
  type Call,
  callRpc,
  createLogger,
  EVENTS,
  eventSubject,
  type ServiceHandle,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookService } from '../../../services/webhook/src/index';
import { createAccount, type TestAccount } from '../support/accounts';
import { placeCallAndWait } from '../support/calls';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import {
  CallEndedBody,
  type ReceivedWebhook,
  startWebhookReceiver,
  signatureVerifies as verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver';

const FROM = '+14155550100';
const SECRET = 'receiver-shared-secret-0123456789';
const BASE_MS = 200;
/**
 * Short, so the never-answering endpoint's three attempts end soon, but far longer than a round trip
 * to the receiver on a loaded machine: an answered attempt must not time out.
 */
const ATTEMPT_TIMEOUT_MS = 2_000;

interface DeliveryRow {
  id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  session_id: string;
}
interface AttemptRow {
  attempt: number;
  started_at: Date;
  status_code: number | null;
  error: string | null;
  succeeded: boolean;
}

describe.each(infraModes())('webhooks (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let receiver: WebhookReceiver;
  let receiverUrl: string;
  let closedPortUrl: string;
  let webhook: ServiceHandle;
  let sql: postgres.Sql;
  const requestsTo = (path: string) => receiver.requestsTo(path);

  async function agentWith(webhookConfig: unknown): Promise<string> {
    const res = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: {
        name: 'Hooked',
        start_flow: 'Hello from Acme.',
        end_flow: 'Goodbye!',
        ...(webhookConfig === undefined ? {} : { webhook_config: webhookConfig }),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.id;
  }

  const placeAndFinish = (agentId: string, phone = '+14155550123'): Promise<Call> =>
    placeCallAndWait(t.url, acme.key, {
      agent_id: agentId,
      source_number: FROM,
      phone_number: phone,
      metadata: { crm_id: 'c-1' },
    });

  async function finalDelivery(agentId: string): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [delivery] = await sql<DeliveryRow[]>`
        select id, event_id, status, attempt_count, session_id from webhook.deliveries where agent_id = ${agentId}`;
      if (delivery && (delivery.status === 'succeeded' || delivery.status === 'failed')) {
        const attempts = await sql<AttemptRow[]>`
          select attempt, started_at, status_code, error, succeeded from webhook.delivery_attempts
           where delivery_id = ${delivery.id} order by attempt`;
        return { delivery, attempts: [...attempts] };
      }
      if (Date.now() > deadline) throw new Error(`delivery for ${agentId} not final: ${delivery?.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiverUrl = receiver.url;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPortUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/refused`;
    await new Promise((resolve) => closed.close(resolve));

    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002, WEBHOOK_RETRY_BASE_MS: BASE_MS } });
    // The platform's webhook service, swapped for one with a short attempt timeout.
    await t.platform.stopService('webhook');
    webhook = createWebhookService(
      {
        bus: t.platform.infrastructure.bus,
        sql: t.platform.infrastructure.openSql('webhook'),
        log: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'test-webhook' }),
        config: { ...t.config, PUBLIC_BASE_URL: t.url },
      },
      { attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, pollIntervalMs: 25 },
    );
    await webhook.start();
    sql = postgres(t.databaseUrl, { max: 2, onnotice: () => {} });
    acme = await createAccount(t, { name: 'Acme' });
  });
  afterAll(async () => {
    await webhook?.stop();
    await sql?.end({ timeout: 5 });
    await t?.stop();
    await receiver?.close();
  });

  it('delivers one signed CALL_ENDED with every 6.3 field, once', async () => {
    const agentId = await agentWith({ url: `${receiverUrl}/ok/signed`, secret: SECRET });
    const call = await placeAndFinish(agentId);
    const { delivery, attempts } = await finalDelivery(agentId);
    expect(delivery.status).toBe('succeeded');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 200, succeeded: true, error: null });

    // No duplicate on success, even after waiting well past the backoff.
    await new Promise((r) => setTimeout(r, BASE_MS * 4));
    const requests = requestsTo('/ok/signed');
    expect(requests).toHaveLength(1);
    const [request] = requests as [ReceivedWebhook];

    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-service-event']).toBe('CALL_ENDED');
    expect(request.headers['x-service-event-id']).toBe(delivery.event_id);
    expect(request.headers['x-service-delivery-id']).toBe(delivery.id);

    const signature = request.headers['x-service-signature'] as string;
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(verifies(SECRET, request.body, signature)).toBe(true);
    expect(verifies('some-other-secret-0123456789', request.body, signature)).toBe(false);

    const stamped = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(
      request.headers['x-service-signature-timestamped'] as string,
    );
    expect(stamped).not.toBeNull();
    const [, ts, v1] = stamped as unknown as [string, string, string];
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', SECRET).update(`${ts}.`).update(request.body).digest('hex');
    expect(v1).toBe(expected);

    const body = CallEndedBody.parse(JSON.parse(request.body.toString('utf8')));
    expect(body.data.session_id).toBe(call.session_id);
    expect(delivery.session_id).toBe(call.session_id);
    expect(body.data).toMatchObject({
      phone_number: call.phone_number,
      direction: 'outbound',
      status: 'completed',
      duration_seconds: call.duration_seconds,
      agent_id: agentId,
      agent_type: call.agent_type,
      metadata: { crm_id: 'c-1' },
      total_cost: call.total_cost,
    });
    expect(body.data.transcript.length).toBeGreaterThan(0);
    expect(new URL(body.data.recording_url).pathname).toBe(`/v1/recordings/${call.id}.wav`);
  });

  it('sends nothing for an agent without webhook_config', async () => {
    const agentId = await agentWith(undefined);
    await placeAndFinish(agentId);
    await new Promise((r) => setTimeout(r, 500));
    const rows = await sql`select id from webhook.deliveries where agent_id = ${agentId}`;
    expect(rows).toHaveLength(0);
  });

  it.each([
    ['a 500', '/e500', 500],
    ['a 404', '/e404', 404],
    ['a 302 (not followed)', '/r302', 302],
    ['no answer (timeout)', '/hang', null],
  ])('makes exactly 3 attempts with backoff for %s, then fails', async (_name, path, statusCode) => {
    const agentId = await agentWith({ url: `${receiverUrl}${path}/${mode}`, secret: SECRET });
    await placeAndFinish(agentId);
    const { delivery, attempts } = await finalDelivery(agentId);
    expect(delivery.status).toBe('failed');
    expect(delivery.attempt_count).toBe(3);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.succeeded])).toEqual([
      [1, statusCode, false],
      [2, statusCode, false],
      [3, statusCode, false],
    ]);
    await new Promise((r) => setTimeout(r, BASE_MS * 3));
    const requests = requestsTo(`${path}/${mode}`);
    expect(requests).toHaveLength(3);
    expect(requestsTo('/ok/redirected')).toHaveLength(0);
    expect(new Set(requests.map((r) => r.headers['x-service-event-id']))).toEqual(
      new Set([delivery.event_id]),
    );
    expect(new Set(requests.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([delivery.id]));
    // Backoff measured between attempt starts: base, then twice the base.
    const [a1, a2, a3] = attempts.map((a) => a.started_at.getTime()) as [number, number, number];
    expect(a2 - a1).toBeGreaterThanOrEqual(BASE_MS);
    expect(a3 - a2).toBeGreaterThanOrEqual(BASE_MS * 2);
    if (statusCode === null) for (const a of attempts) expect(a.error).toMatch(/timeout/);
  });

  it('makes exactly 3 attempts to a refused connection, then fails', async () => {
    const agentId = await agentWith({ url: closedPortUrl });
    await placeAndFinish(agentId);
    const { delivery, attempts } = await finalDelivery(agentId);
    expect(delivery.status).toBe('failed');
    expect(attempts).toHaveLength(3);
    for (const a of attempts)
      expect(a).toMatchObject({ status_code: null, error: 'ECONNREFUSED', succeeded: false });
    const [a1, a2, a3] = attempts.map((a) => a.started_at.getTime()) as [number, number, number];
    expect(a2 - a1).toBeGreaterThanOrEqual(BASE_MS);
    expect(a3 - a2).toBeGreaterThanOrEqual(BASE_MS * 2);
  });

  it('answers agent.webhook_target per account: the target with its secret, null, or AGENT_NOT_FOUND', async () => {
    const hooked = await agentWith({ url: `${receiverUrl}/ok/target`, secret: SECRET });
    const plain = await agentWith(undefined);
    const ask = (agentId: string, accountId: string) =>
      callRpc(
        t.platform.infrastructure.bus,
        AGENT.webhookTarget,
        { agent_id: agentId },
        {
          requestId: randomUUID(),
          accountId,
        },
      );
    expect(await ask(hooked, acme.accountId)).toEqual({
      url: `${receiverUrl}/ok/target`,
      events: ['CALL_ENDED'],
      secret: SECRET,
    });
    expect(await ask(plain, acme.accountId)).toBeNull();
    const other = await createAccount(t, { name: 'Other' });
    await expect(ask(hooked, other.accountId)).rejects.toSatisfy(
      (e) => e instanceof AppError && e.code === 'AGENT_NOT_FOUND',
    );
  });

  it('stores one delivery per event: a redelivered CALL_ENDED sends nothing again', async () => {
    const agentId = await agentWith({ url: `${receiverUrl}/ok/dedupe/${mode}`, secret: SECRET });
    const call = await placeAndFinish(agentId);
    const { delivery } = await finalDelivery(agentId);
    expect(delivery.event_id).toBe(call.id);
    const republish = (id: string) =>
      t.platform.infrastructure.bus.publishDurable(
        eventSubject(EVENTS.callEnded, acme.accountId, call.id),
        {
          id,
          type: 'call.ended',
          account_id: acme.accountId,
          occurred_at: new Date().toISOString(),
          data: { call },
        },
        { msgId: randomUUID() },
      );
    // The same event again (a redelivery, past the server's own dedupe).
    await republish(call.id);
    await new Promise((r) => setTimeout(r, 600));
    expect(await sql`select id from webhook.deliveries where agent_id = ${agentId}`).toHaveLength(1);
    expect(requestsTo(`/ok/dedupe/${mode}`)).toHaveLength(1);

    // A new event for an agent deleted since: nothing to deliver, and no endless redelivery.
    const deleted = await api(t.url, 'DELETE', `/v1/agents/${agentId}`, { key: acme.key });
    expect(deleted.status).toBe(204);
    await republish(randomUUID());
    await new Promise((r) => setTimeout(r, 600));
    expect(await sql`select id from webhook.deliveries where agent_id = ${agentId}`).toHaveLength(1);
    expect(requestsTo(`/ok/dedupe/${mode}`)).toHaveLength(1);
  });
});
