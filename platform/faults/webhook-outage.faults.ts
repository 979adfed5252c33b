import type { BulkRedelivery, Call, Campaign, PageOf } from '@voice/shared';
import { parseExposition } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../test/api/webhook-support';
import { api, type Envelope } from '../test/support/http';
import {
  CallEndedBody,
  signatureVerifies,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../test/support/webhook-receiver';
import { type FaultCluster, startFaultCluster } from './support/fault-cluster';

/**
 * A webhook receiver down longer than a delivery's three attempts, in the production topology
 * (`pnpm test:faults`: two gateways and two replicas of each service as processes on NATS and
 * PostgreSQL). Mid-campaign the agent's receiver stops (connections refused) until deliveries have
 * failed for good, then comes back. While it is down the `webhook_endpoints_failing` gauge of both
 * webhook replicas counts the agent and a replica logs the failing-endpoint line; once the campaign
 * is over, one bulk redelivery by agent and time range queues exactly the events the receiver
 * missed, and every call's CALL_ENDED has then arrived, signed, with the gauge back to 0.
 */

const CONTACTS = 120;
const CAP = 10;
/** A completed call lasts ~30-100 simulated seconds: ~0.8-2.5 s of wall time here. */
const SIM_TIME_SCALE = 0.025;
/** Attempts at 0, +250 and +500 ms: a delivery fails for good ~0.75 s after its first attempt. */
const RETRY_BASE_MS = 250;
const RETRY_WINDOW_MS = RETRY_BASE_MS + 2 * RETRY_BASE_MS;
/** CALL_ENDED received before the receiver goes down, and failed for good before it comes back. */
const DELIVERED_BEFORE_OUTAGE = 15;
const FAILED_DURING_OUTAGE = 12;
const FROM = '+14155550100';
const SECRET = 'outage-webhook-secret-0123456789';
const PATH = '/ok/outage';
const FINAL_CALL = ['completed', 'no_answer', 'failed', 'voicemail', 'busy'];

/** A webhook process's output line, as the launcher forwards it: `webhook-1   | {json}`. */
type LogLine = { level: number; msg: string; agent_id?: string; [field: string]: unknown };
const parseLine = (line: string): LogLine => JSON.parse(line.slice(line.indexOf('| ') + 2)) as LogLine;

describe('a webhook receiver down longer than the retries: production topology', () => {
  let faults: FaultCluster | undefined;
  let receiver: WebhookReceiver;
  let stopCode: number | null | undefined;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    faults = await startFaultCluster({
      SIM_TIME_SCALE: String(SIM_TIME_SCALE),
      WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      // Every process serves /metrics on a port of its own (the launcher's ready lines say which).
      METRICS_PORT: '0',
    });
  }, 150_000);

  afterAll(async () => {
    stopCode = await faults?.stop();
    await receiver?.close();
    expect(stopCode, 'every process stopped cleanly on SIGTERM').toBe(0);
  }, 60_000);

  /** webhook_endpoints_failing as each webhook replica reports it. */
  async function failingGauges(): Promise<number[]> {
    return Promise.all(
      ['webhook-1', 'webhook-2'].map(async (name) => {
        const url = faults!.cluster.process(name).metricsUrl;
        if (!url) throw new Error(`${name} serves no metrics`);
        const res = await fetch(url);
        expect(res.status).toBe(200);
        return parseExposition(await res.text()).sum('webhook_endpoints_failing');
      }),
    );
  }

  /** The gauges once both replicas read `value` (they read one table: they agree within a scrape). */
  const gaugesReading = (value: number) =>
    until(
      `webhook_endpoints_failing ${value} on both replicas`,
      async () => {
        const gauges = await failingGauges();
        return gauges.every((g) => g === value) ? gauges : undefined;
      },
      10_000,
    );

  /** Sessions whose CALL_ENDED the receiver answered with a 2xx, and how many times. */
  function delivered(): Map<string, number> {
    const bySession = new Map<string, number>();
    for (const r of receiver.requestsTo(PATH)) {
      if (r.answered === null || r.answered < 200 || r.answered >= 300) continue;
      const { data } = CallEndedBody.parse(JSON.parse(r.body.toString('utf8')));
      bySession.set(data.session_id, (bySession.get(data.session_id) ?? 0) + 1);
    }
    return bySession;
  }

  it('shows the failing endpoint, and one bulk redelivery by time range delivers every missing CALL_ENDED', async () => {
    const { gateways, sql, cluster } = faults!;
    const logged = cluster.watchOutput(
      /webhook endpoint failing|webhook delivery failed after its last attempt/,
    );
    const { key } = await faults!.account('Outage');
    const agent = await api<Envelope<{ id: string }>>(gateways[0]!, 'POST', '/v1/agents', {
      key,
      body: {
        name: 'Outage',
        start_flow: 'Hi, this is Outage from Acme.',
        end_flow: 'Thanks, goodbye!',
        webhook_config: { url: `${receiver.url}${PATH}`, secret: SECRET },
      },
    });
    expect(agent.status, agent.text).toBe(201);
    const agentId = agent.body.data.id;
    expect(await failingGauges()).toEqual([0, 0]);

    const from = new Date(Date.now() - 1000).toISOString();
    // Distinct numbers; the last four digits 0001-0004 end no_answer, busy, voicemail, failed.
    const contacts = Array.from({ length: CONTACTS }, (_, i) => ({
      phone: `+1415520${String(i).padStart(4, '0')}`,
      name: `Contact ${i}`,
    }));
    const created = await api<Envelope<Campaign>>(gateways[0]!, 'POST', '/v1/campaigns', {
      key,
      body: { name: 'Outage', agent_id: agentId, phone_number: FROM, contacts, max_concurrent_calls: CAP },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = created.body.data.id;

    const finalDeliveries = async (status: 'failed' | 'succeeded') => {
      const [row] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM webhook.deliveries WHERE agent_id = ${agentId} AND status = ${status}`;
      return row!.n;
    };

    // The outage: from mid-campaign until deliveries have failed after all three attempts.
    await until('CALL_ENDED arriving before the outage', () =>
      delivered().size >= DELIVERED_BEFORE_OUTAGE ? true : undefined,
    );
    await receiver.down();
    const downAt = Date.now();
    await until(
      'deliveries failing for good',
      async () => ((await finalDeliveries('failed')) >= FAILED_DURING_OUTAGE ? true : undefined),
      60_000,
    );
    const gaugesWhileDown = await gaugesReading(1);
    const failingLine = await until('the failing-endpoint log line', () =>
      logged.map(parseLine).find((l) => l.msg.startsWith('webhook endpoint failing')),
    );
    await receiver.up();
    const outageMs = Date.now() - downAt;

    // The campaign carries on; then every call's CALL_ENDED has a delivery, none of them unfinished.
    const campaign = await until(
      'the campaign to complete',
      async () => {
        const res = await api<Envelope<Campaign>>(gateways[1]!, 'GET', `/v1/campaigns/${campaignId}`, {
          key,
        });
        return res.body.data.status === 'completed' ? res.body.data : undefined;
      },
      120_000,
    );
    const calls: Call[] = [];
    for (let page = 1; ; page++) {
      const res = await api<Envelope<PageOf<Call>>>(
        gateways[0]!,
        'GET',
        `/v1/calls?campaign_id=${campaignId}&page=${page}&page_size=100`,
        { key },
      );
      calls.push(...res.body.data.items);
      if (!res.body.data.has_more) break;
    }
    expect(calls).toHaveLength(CONTACTS);
    expect(calls.filter((c) => !FINAL_CALL.includes(c.status))).toEqual([]);
    await until(
      'every CALL_ENDED stored and its delivery finished',
      async () => {
        const [row] = await sql<{ events: number; unfinished: number }[]>`
          SELECT count(DISTINCT event_id)::int AS events,
                 count(*) FILTER (WHERE status IN ('pending', 'delivering'))::int AS unfinished
            FROM webhook.deliveries WHERE agent_id = ${agentId}`;
        return row!.events === CONTACTS && row!.unfinished === 0 ? true : undefined;
      },
      60_000,
    );
    const failedForGood = await finalDeliveries('failed');
    const missing = calls.filter((c) => !delivered().has(c.session_id)).map((c) => c.id);
    // What the receiver missed is what failed for good (nothing else went astray).
    expect(missing.length).toBe(failedForGood);
    expect(missing.length).toBeGreaterThanOrEqual(FAILED_DURING_OUTAGE);

    // The account catches up in one request, through the other gateway.
    const bulkAt = Date.now();
    const to = new Date(Date.now() + 1000).toISOString();
    const bulk = await api<Envelope<BulkRedelivery>>(
      gateways[1]!,
      'POST',
      `/v1/agents/${agentId}/webhook-deliveries/redeliver`,
      { key, body: { from, to } },
    );
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.has_more).toBe(false);
    expect(bulk.body.data.queued).toBe(missing.length);
    expect(bulk.body.data.deliveries.map((d) => d.event_id).sort()).toEqual([...missing].sort());

    // Nothing lost: every call's CALL_ENDED received, signed with the agent's secret.
    const sessions = calls.map((c) => c.session_id);
    await until(
      'every CALL_ENDED at the receiver',
      () => {
        const got = delivered();
        return sessions.every((s) => got.has(s)) ? true : undefined;
      },
      60_000,
    );
    const redeliveries = receiver.requestsTo(PATH).filter((r) => r.at >= bulkAt);
    expect(redeliveries.map((r) => r.headers['x-service-event-id']).sort()).toEqual([...missing].sort());
    for (const r of redeliveries)
      expect(signatureVerifies(SECRET, r.body, r.headers['x-service-signature'] as string)).toBe(true);
    const gaugesAfter = await gaugesReading(0);

    const lines = logged.map(parseLine).filter((l) => l.agent_id === agentId);
    const host = new URL(receiver.url).host;
    const duplicates = [...delivered().values()].filter((n) => n > 1).length;
    console.log(
      [
        '',
        `calls ${calls.length}, campaign ${campaign.status}, receiver down ${outageMs} ms (retry window ${RETRY_WINDOW_MS} ms)`,
        `deliveries failed for good ${failedForGood}, CALL_ENDED missing before the bulk redelivery ${missing.length}`,
        `bulk redelivery queued ${bulk.body.data.queued}; after it, CALL_ENDED missing 0, sessions received twice ${duplicates}`,
        `webhook_endpoints_failing (webhook-1, webhook-2): while down ${gaugesWhileDown}, after ${gaugesAfter}`,
        `log: ${lines.filter((l) => l.msg.startsWith('webhook delivery failed')).length} "delivery failed" lines, ` +
          `failing-endpoint line ${JSON.stringify(failingLine)}`,
        '',
      ].join('\n'),
    );

    expect(outageMs).toBeGreaterThan(RETRY_WINDOW_MS);
    expect(failingLine).toMatchObject({ level: 40, agent_id: agentId, host, failed_deliveries: 3 });
    expect(Date.parse(failingLine.failing_since as string)).toBeGreaterThanOrEqual(Date.parse(from));
    // One warning per delivery that failed for good, naming the agent and the host only.
    const failedLines = lines.filter((l) => l.msg.startsWith('webhook delivery failed'));
    expect(failedLines).toHaveLength(failedForGood);
    for (const line of failedLines)
      expect(line).toMatchObject({ level: 40, host, attempts: 3, last_error: 'ECONNREFUSED' });
    expect(JSON.stringify(logged)).not.toContain(SECRET);
  }, 240_000);
});
