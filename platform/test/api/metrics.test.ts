import { randomUUID } from 'node:crypto';
import type { Call, Campaign } from '@voice/shared';
import { type Exposition, infraModes, parseExposition } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedCarrier } from '../../../services/call/src/carrier/index';
import { createAccount, type TestAccount } from '../support/accounts';
import { placeCallAndWait } from '../support/calls';
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

type Provider = NonNullable<TestPlatformOptions['callProvider']>;
type Session = ReturnType<Provider['dial']>;

const FROM = '+14155550100';
const SIM_TIME_SCALE = 0.002;

/**
 * The simulated carrier, except that while `hold()` is on, new calls wait before dialing (their
 * campaign contacts stay in progress) until `release()`.
 */
class GatedCarrier implements Provider {
  private readonly carrier = new SimulatedCarrier({ timeScale: SIM_TIME_SCALE });
  readonly maxCallSeconds = this.carrier.maxCallSeconds;
  readonly info = this.carrier.info;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => {};
  held = 0;

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open();
    this.gate = Promise.resolve();
  }

  dial(...[request, onEvent]: Parameters<Provider['dial']>): Session {
    const gate = this.gate;
    let session: Session | undefined;
    this.held++;
    const started = gate.then(() => {
      this.held--;
      session = this.carrier.dial(request, onEvent);
      return session;
    });
    return {
      done: started.then((s) => s.done),
      hangUp: async () => (await started).hangUp(),
    };
  }

  resume(...args: Parameters<Provider['resume']>): Session {
    return this.carrier.resume(...args);
  }

  recording(...args: Parameters<Provider['recording']>): ReturnType<Provider['recording']> {
    return this.carrier.recording(...args);
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

describe.each(infraModes())('GET /metrics on the all-in-one process (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let receiver: WebhookReceiver;
  let agentId: string;
  const carrier = new GatedCarrier();

  async function scrape(): Promise<Exposition> {
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parseExposition(await res.text());
  }

  async function agentWith(webhookUrl: string): Promise<string> {
    const res = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: {
        name: 'Measured',
        start_flow: 'Hello, this is Measured.',
        end_flow: 'Goodbye!',
        webhook_config: { url: webhookUrl },
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id;
  }

  const placeAndFinish = (agent: string): Promise<Call> =>
    placeCallAndWait(t.url, acme.key, { agent_id: agent, source_number: FROM, phone_number: '+14155551234' });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestPlatform(mode, {
      callProvider: carrier,
      config: { SIM_TIME_SCALE, WEBHOOK_RETRY_BASE_MS: 50 },
    });
    expect(t.platform.metricsUrl).toBe(`${t.url}/metrics`);
    acme = await createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 100_000 });
    agentId = await agentWith(`${receiver.url}/ok/metrics`);
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('counts and times REST, GraphQL and tRPC requests by route template and status', async () => {
    const before = await scrape();
    const agentRoute = { method: 'GET', route: '/v1/agents/:agent_id' };
    const missing = randomUUID();
    expect((await api(t.url, 'GET', `/v1/agents/${agentId}`, { key: acme.key })).status).toBe(200);
    expect((await api(t.url, 'GET', `/v1/agents/${agentId}`, { key: acme.key })).status).toBe(200);
    expect((await api(t.url, 'GET', `/v1/agents/${missing}`, { key: acme.key })).status).toBe(404);
    expect((await api(t.url, 'GET', `/v1/no-such-thing/${missing}`)).status).toBe(404);
    const graphql = await api(t.url, 'POST', '/graphql', {
      key: acme.key,
      body: { query: 'query ($id: ID!) { agent(id: $id) { id name } }', variables: { id: agentId } },
    });
    expect(graphql.status, graphql.text).toBe(200);
    const trpc = await api(
      t.url,
      'GET',
      `/trpc/agents.get?input=${encodeURIComponent(JSON.stringify({ id: agentId }))}`,
      { key: acme.key },
    );
    expect(trpc.status, trpc.text).toBe(200);

    const after = await scrape();
    const moved = (labels: Record<string, string>) =>
      after.sum('http_requests_total', labels) - before.sum('http_requests_total', labels);
    expect(moved({ ...agentRoute, status: '200' })).toBe(2);
    expect(moved({ ...agentRoute, status: '404' })).toBe(1);
    expect(moved({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(moved({ method: 'POST', route: '/graphql', status: '200' })).toBe(1);
    expect(moved({ method: 'GET', route: '/trpc/:path', status: '200' })).toBe(1);

    // The histogram has one observation per request, in cumulative buckets ending at +Inf.
    const count = (e: Exposition) =>
      e.sum('http_request_duration_seconds_count', { ...agentRoute, status: '200' });
    expect(count(after) - count(before)).toBe(2);
    const buckets = after.find('http_request_duration_seconds_bucket', { ...agentRoute, status: '200' });
    expect(buckets.at(-1)?.labels.le).toBe('+Inf');
    expect(buckets.at(-1)?.value).toBe(count(after));
    expect(after.types.get('http_requests_total')).toBe('counter');
    expect(after.types.get('http_request_duration_seconds')).toBe('histogram');

    // Route templates only: no raw path (and so no id) ever becomes a label value.
    const routes = new Set(after.find('http_requests_total').map((s) => s.labels.route));
    for (const route of routes) {
      expect(route).not.toContain(agentId);
      expect(route).not.toContain(missing);
      expect(route === 'unmatched' || route!.startsWith('/')).toBe(true);
    }
  });

  it('times bus requests by subject and outcome, as sent and as answered', async () => {
    const before = await scrape();
    await api(t.url, 'GET', `/v1/agents/${agentId}`, { key: acme.key });
    await api(t.url, 'GET', `/v1/agents/${randomUUID()}`, { key: acme.key });
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      after.sum(name, labels) - before.sum(name, labels);
    expect(moved('bus_request_duration_seconds_count', { subject: 'agent.get', outcome: 'ok' })).toBe(1);
    // The service answered AGENT_NOT_FOUND: an error reply, not a failure of the bus.
    expect(moved('bus_request_duration_seconds_count', { subject: 'agent.get', outcome: 'error' })).toBe(1);
    expect(moved('bus_handler_duration_seconds_count', { subject: 'agent.get', outcome: 'ok' })).toBe(1);
    expect(moved('bus_handler_duration_seconds_count', { subject: 'agent.get', outcome: 'error' })).toBe(1);
    expect(after.types.get('bus_request_duration_seconds')).toBe('histogram');
    // Subjects carry no prefix (nats mode runs under one) and no ids.
    for (const sample of after.find('bus_request_duration_seconds_count')) {
      expect(sample.labels.subject).toMatch(/^[a-z_]+\.[a-z_]+$/);
    }
  });

  it('counts call transitions and webhook attempts by result after finished calls', async () => {
    const failing = await agentWith(`${receiver.url}/e500/metrics`);
    const before = await scrape();
    await placeAndFinish(agentId);
    await placeAndFinish(failing);
    // Deliveries: one succeeds at once; the other fails three times (50 ms, then 100 ms apart).
    // Polled through the API (the key's budget): every scrape draws on the public per-IP budget.
    for (const agent of [agentId, failing]) {
      await until('the delivery to finish', async () => {
        const log = await api<Envelope<{ items: { status: string }[] }>>(
          t.url,
          'GET',
          `/v1/agents/${agent}/webhook-deliveries`,
          { key: acme.key },
        );
        const status = log.body.data.items[0]?.status;
        return status === 'succeeded' || status === 'failed' ? status : undefined;
      });
    }
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      after.sum(name, labels) - before.sum(name, labels);

    expect(moved('calls_transitions_total', { status: 'initializing' })).toBe(2);
    expect(moved('calls_transitions_total', { status: 'ringing' })).toBe(2);
    expect(moved('calls_transitions_total', { status: 'completed' })).toBe(2);
    expect(after.types.get('calls_live')).toBe('gauge');

    expect(moved('webhook_attempts_total', { result: 'succeeded' })).toBe(1);
    expect(moved('webhook_attempts_total', { result: 'http_5xx' })).toBe(3);
    expect(moved('webhook_attempt_duration_seconds_count', { result: 'http_5xx' })).toBe(3);
    expect(moved('webhook_deliveries_finished_total', { status: 'succeeded' })).toBe(1);
    expect(moved('webhook_deliveries_finished_total', { status: 'failed' })).toBe(1);
    expect(moved('bus_request_duration_seconds_count', { subject: 'call.create', outcome: 'ok' })).toBe(2);
    // Each CALL_ENDED handled by both durable consumers.
    for (const durable of ['webhook-call-ended', 'campaign-call-ended']) {
      expect(moved('bus_durable_messages_total', { durable, outcome: 'acked' }), durable).toBe(2);
    }
  });

  it('reports the campaign calls in progress, read from the database at scrape', async () => {
    const numbers = ['+14155553001', '+14155553002', '+14155553003', '+14155553004'];
    const before = await scrape();
    expect(before.sum('campaign_active_calls')).toBe(0);
    carrier.hold();
    let campaign: Campaign;
    try {
      const created = await api<Envelope<Campaign>>(t.url, 'POST', '/v1/campaigns', {
        key: acme.key,
        body: {
          name: 'Measured outreach',
          agent_id: agentId,
          phone_number: FROM,
          max_concurrent_calls: 3,
          contacts: numbers.map((phone) => ({ phone })),
        },
      });
      expect(created.status, created.text).toBe(201);
      campaign = created.body.data;
      // Three claimed (the cap), each call waiting at the carrier.
      await until('three campaign calls at the carrier', async () => (carrier.held === 3 ? true : undefined));
      const during = await scrape();
      expect(during.sum('campaign_active_calls')).toBe(3);
      expect(during.sum('campaigns_running')).toBe(1);
      expect(during.sum('calls_live')).toBe(3);
      expect(during.types.get('campaign_active_calls')).toBe('gauge');
    } finally {
      carrier.release();
    }
    await until('the campaign to complete', async () => {
      const got = await api<Envelope<Campaign>>(t.url, 'GET', `/v1/campaigns/${campaign.id}`, {
        key: acme.key,
      });
      return got.body.data.status === 'completed' ? true : undefined;
    });
    // A placement is counted once the dispatcher recorded its confirmation, which can come after
    // a call that ends at once has already completed the campaign.
    const placed = (e: Awaited<ReturnType<typeof scrape>>) =>
      e.sum('campaign_placements_total', { result: 'placed' }) -
      before.sum('campaign_placements_total', { result: 'placed' });
    const after = await until('every placement counted', async () => {
      const e = await scrape();
      return placed(e) >= 4 ? e : undefined;
    });
    expect(after.sum('campaign_active_calls')).toBe(0);
    expect(after.sum('campaigns_running')).toBe(0);
    expect(placed(after)).toBe(4);
    // Each call's end moved its contact in one timed transaction.
    const recorded = (e: Awaited<ReturnType<typeof scrape>>) =>
      e.sum('campaign_call_ended_seconds_count', { result: 'recorded' });
    expect(recorded(after) - recorded(before)).toBe(4);
    const locked = (e: Awaited<ReturnType<typeof scrape>>) =>
      e.sum('campaign_call_ended_locked_seconds_count');
    expect(locked(after) - locked(before)).toBe(4);
    expect(after.types.get('campaign_call_ended_seconds')).toBe('histogram');
  });

  it('has the process metrics and a role label on every sample, and stays out of the OpenAPI document', async () => {
    const e = await scrape();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(e.find(name).length, name).toBeGreaterThan(0);
    }
    for (const sample of e.samples) expect(sample.labels.role, sample.name).toBe('all');
    const doc = await api<{ paths: Record<string, unknown> }>(t.url, 'GET', '/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
  });
});

describe('METRICS_PORT: /metrics on its own listener, off the API port', () => {
  let t: TestPlatform | undefined;
  afterAll(async () => t?.stop());

  it('serves only GET /metrics there, 404 on the API port, and closes it on stop', async () => {
    t = await startTestPlatform('embedded', { config: { METRICS_PORT: 0 } });
    const metricsUrl = t.platform.metricsUrl!;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(t.url).port);

    expect((await api(t.url, 'GET', '/v1/health')).status).toBe(200);
    expect((await api(t.url, 'GET', '/metrics')).status).toBe(404);

    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const e = parseExposition(await res.text());
    expect(e.sum('http_requests_total', { route: '/v1/health', status: '200' })).toBe(1);
    expect(e.sum('http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(e.find('bus_request_duration_seconds_count', { subject: 'call.health' }).length).toBe(1);

    // A service that is down: the gateway's request finds no responder (503), at once.
    await t.platform.stopService('campaign');
    const key = (await createAccount(t, { name: 'Down' })).key;
    expect((await api(t.url, 'GET', '/v1/campaigns', { key })).status).toBe(503);
    const down = parseExposition(await (await fetch(metricsUrl)).text());
    expect(
      down.sum('bus_request_duration_seconds_count', { subject: 'campaign.list', outcome: 'no_responders' }),
    ).toBe(1);
    expect(down.sum('http_requests_total', { route: '/v1/campaigns', method: 'GET', status: '503' })).toBe(1);

    const origin = new URL(metricsUrl).origin;
    expect((await fetch(`${origin}/other`)).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
    expect((await fetch(metricsUrl, { method: 'HEAD' })).status).toBe(200);

    await t.stop();
    t = undefined;
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });
});
