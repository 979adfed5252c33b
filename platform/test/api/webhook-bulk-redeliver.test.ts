import type { BulkRedelivery, Call, WebhookDelivery } from '@voice/shared';
import { type Exposition, infraModes, parseExposition } from '@voice/shared/testing';
import { describe, expect, it } from 'vitest';
import { createKey } from '../support/accounts';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { CallEndedBody, type ReceivedWebhook, signatureVerifies } from '../support/webhook-receiver';
import { until, webhookLogSuite } from './webhook-support';

const SECRET = 'bulk-test-secret-0123456789abcdef';
/** A token in the receiver's query string: it must never reach a log line. */
const URL_TOKEN = 'url-token-0123456789';
const BASE_MS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(infraModes())('bulk redelivery of failed webhook deliveries (%s)', (mode) => {
  const suite = webhookLogSuite(mode, { retryBaseMs: BASE_MS, captureLogs: true });
  const { deliveriesPath, agentWith, placeAndFinish, settledLog } = suite;
  const bulkPath = (agentId: string) => `${deliveriesPath(agentId)}/redeliver`;

  async function bulk(agentId: string, body: unknown, key = suite.acme.key) {
    return api<Envelope<BulkRedelivery> & ErrorEnvelope>(suite.t.url, 'POST', bulkPath(agentId), {
      key,
      body,
    });
  }

  async function scrape(): Promise<Exposition> {
    const res = await fetch(`${suite.t.url}/metrics`);
    expect(res.status).toBe(200);
    return parseExposition(await res.text());
  }

  const logsWith = (msg: string, agentId: string) =>
    suite.t.logs.filter(
      (line) => typeof line.msg === 'string' && line.msg.startsWith(msg) && line.agent_id === agentId,
    );

  const eventIdsAt = (prefix: string): string[] =>
    suite.receiver.received
      .filter((r) => r.path.startsWith(prefix))
      .map((r) => r.headers['x-service-event-id'] as string);

  it('catches up a receiver that was down: each failed event in the range arrives once, as it was', async () => {
    const path = `/ok/bulk/${mode}`;
    const agentId = await agentWith({
      url: `${suite.receiver.url}${path}?token=${URL_TOKEN}`,
      secret: SECRET,
    });
    const failingBefore = (await scrape()).sum('webhook_endpoints_failing');
    await suite.receiver.down();

    // An event that failed before the range: not redelivered.
    const early = await placeAndFinish(agentId);
    await settledLog(agentId, 1);
    const from = new Date().toISOString();
    const calls: Call[] = [];
    for (let i = 0; i < 3; i++) calls.push(await placeAndFinish(agentId));
    const failed = await settledLog(agentId, 4);
    expect(failed.map((d) => d.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    for (const delivery of failed) expect(delivery.attempts).toHaveLength(3);
    // A redelivery by hand while still down fails too: that event has two failed deliveries.
    const byHand = failed.find((d) => d.event_id === calls[0]!.id)!;
    const single = await api<Envelope<WebhookDelivery>>(
      suite.t.url,
      'POST',
      `${deliveriesPath(agentId)}/${byHand.id}/redeliver`,
      {
        key: suite.acme.key,
      },
    );
    expect(single.status, single.text).toBe(201);
    await settledLog(agentId, 5);

    // Visible to the operator: a warning per failed delivery naming agent and host, and one when
    // the endpoint kept failing; the gauge counts the endpoint.
    const failures = await until('a log line per failed delivery', () => {
      const lines = logsWith('webhook delivery failed', agentId);
      return lines.length === 5 ? lines : undefined;
    });
    const host = new URL(suite.receiver.url).host;
    for (const line of failures) {
      expect(line).toMatchObject({
        level: 40,
        host,
        attempts: 3,
        status_code: null,
        last_error: 'ECONNREFUSED',
      });
    }
    expect(logsWith('webhook endpoint failing', agentId)).toEqual([
      expect.objectContaining({ level: 40, host, failed_deliveries: 3 }),
    ]);
    expect((await scrape()).sum('webhook_endpoints_failing')).toBe(failingBefore + 1);

    await suite.receiver.up();
    const to = new Date(Date.now() + 1000).toISOString();
    const first = await bulk(agentId, { from, to, limit: 2 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({ queued: 2, has_more: true });
    const second = await bulk(agentId, { from, to });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toMatchObject({ queued: 1, has_more: false });
    // Asked again: every event is delivered or queued already.
    const third = await bulk(agentId, { from, to, status: 'failed' });
    expect(third.body.data).toEqual({ queued: 0, has_more: false, deliveries: [] });

    // One new delivery per event, repeating its newest failed delivery (the one by hand for calls[0]).
    const queued = [...first.body.data.deliveries, ...second.body.data.deliveries];
    const newestFailed = new Map(failed.map((d) => [d.event_id, d.id]));
    newestFailed.set(calls[0]!.id, single.body.data.id);
    expect(queued.map((d) => [d.event_id, d.redelivery_of]).sort()).toEqual(
      calls.map((c) => [c.id, newestFailed.get(c.id)]).sort(),
    );

    const log = await settledLog(agentId, 8);
    const redelivered = log.filter((d) => queued.some((q) => q.id === d.id));
    expect(redelivered.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    // Each event once, with its own event id, signed with the secret; the early one not at all.
    const arrived = eventIdsAt(path);
    expect(arrived.sort()).toEqual(calls.map((c) => c.id).sort());
    expect(arrived).not.toContain(early.id);
    for (const call of calls) {
      const request = suite.receiver.received.find(
        (r) => r.path.startsWith(path) && r.headers['x-service-event-id'] === call.id,
      ) as ReceivedWebhook;
      const body = CallEndedBody.parse(JSON.parse(request.body.toString('utf8')));
      expect(body.data.session_id).toBe(call.session_id);
      expect(signatureVerifies(SECRET, request.body, request.headers['x-service-signature'] as string)).toBe(
        true,
      );
    }

    // Recovered: the gauge is back, and the log says since when deliveries failed.
    expect((await scrape()).sum('webhook_endpoints_failing')).toBe(failingBefore);
    const [recovered] = await until('the recovery log line', () => {
      const lines = logsWith('webhook endpoint recovered', agentId);
      return lines.length > 0 ? lines : undefined;
    });
    expect(recovered).toMatchObject({ level: 30, host, failed_deliveries: 5 });
    expect(Date.parse(recovered!.failing_since as string)).toBeLessThan(Date.parse(from));
    const written = JSON.stringify(suite.t.logs);
    expect(written).not.toContain(SECRET);
    expect(written).not.toContain(URL_TOKEN);
  });

  it('never queues an event twice when bulk requests run at once', async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/e500/concurrent/${mode}` });
    const from = new Date().toISOString();
    const calls = [
      await placeAndFinish(agentId),
      await placeAndFinish(agentId),
      await placeAndFinish(agentId),
    ];
    await settledLog(agentId, 3);
    const fixed = `/ok/concurrent/${mode}`;
    const patched = await api(suite.t.url, 'PATCH', `/v1/agents/${agentId}`, {
      key: suite.acme.key,
      body: { webhook_config: { url: `${suite.receiver.url}${fixed}` } },
    });
    expect(patched.status, patched.text).toBe(200);

    const to = new Date(Date.now() + 1000).toISOString();
    const answers = await Promise.all([1, 2, 3].map(() => bulk(agentId, { from, to })));
    for (const res of answers) expect(res.status, res.text).toBe(200);
    expect(answers.reduce((n, res) => n + res.body.data.queued, 0)).toBe(3);
    await settledLog(agentId, 6);
    expect(eventIdsAt(fixed).sort()).toEqual(calls.map((c) => c.id).sort());
  });

  it('answers 422 for a missing, reversed, too wide or malformed range and other bodies', async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/ok/validation/${mode}` });
    const now = Date.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const cases: [unknown, (string | number)[]][] = [
      [undefined, ['body']],
      [{ to: at(now) }, ['body', 'from']],
      [{ from: at(now), to: at(now) }, ['body', 'to']],
      [{ from: at(now), to: at(now - 1000) }, ['body', 'to']],
      [{ from: at(now - 31 * DAY_MS), to: at(now) }, ['body', 'to']],
      [{ from: 'yesterday', to: at(now) }, ['body', 'from']],
      [{ from: '2026-01-01T00:00:00', to: at(now) }, ['body', 'from']],
      [{ from: at(now - DAY_MS), to: at(now), status: 'succeeded' }, ['body', 'status']],
      [{ from: at(now - DAY_MS), to: at(now), limit: 0 }, ['body', 'limit']],
      [{ from: at(now - DAY_MS), to: at(now), limit: 1001 }, ['body', 'limit']],
    ];
    for (const [body, loc] of cases) {
      const res = await bulk(agentId, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(422);
      const issues = res.body.detail as { loc: (string | number)[] }[];
      expect(
        issues.map((issue) => issue.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    const widest = await bulk(agentId, { from: at(now - 30 * DAY_MS), to: at(now) });
    expect(widest.status, widest.text).toBe(200);
    expect(widest.body.data).toEqual({ queued: 0, has_more: false, deliveries: [] });
    // Far edges of the format (a year PostgreSQL refuses, the largest offset) are ranges like any other.
    for (const range of [
      { from: '0000-01-01T00:00:00Z', to: '0000-01-02T00:00:00Z' },
      { from: '9999-12-30T00:00:00+23:59', to: '9999-12-31T23:59:59.999-23:59' },
    ]) {
      const edge = await bulk(agentId, range);
      expect(edge.status, edge.text).toBe(200);
      expect(edge.body.data.queued).toBe(0);
    }
  });

  it("answers 404 for another account's agent, 403 without agents:write, 409 without a webhook", async () => {
    const agentId = await agentWith({ url: `${suite.receiver.url}/ok/tenancy/${mode}` });
    const range = { from: new Date(Date.now() - DAY_MS).toISOString(), to: new Date().toISOString() };
    const theirs = await bulk(agentId, range, suite.other.key);
    expect(theirs.status, theirs.text).toBe(404);
    expect(theirs.body.detail).toBe('Agent not found');
    const readOnly = await createKey(suite.t, suite.acme.accountId, ['agents:read']);
    expect((await bulk(agentId, range, readOnly)).status).toBe(403);
    expect((await api(suite.t.url, 'POST', bulkPath(agentId), { body: range })).status).toBe(401);
    const none = await bulk(await agentWith(undefined), range);
    expect(none.status, none.text).toBe(409);
    expect(none.body.detail).toMatch(/webhook_config/);
  });
});
