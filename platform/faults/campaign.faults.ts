import { setTimeout as delay } from 'node:timers/promises';
import type { Call, Campaign, PageOf } from '@voice/shared';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialsPerNumber, maxOverlap } from '../test/api/campaigns-support';
import type { Cluster } from '../test/support/cluster';
import { api, type Envelope } from '../test/support/http';
import { startWebhookReceiver, type WebhookReceiver } from '../test/support/webhook-receiver';
import { type FaultCluster, startFaultCluster } from './support/fault-cluster';
import type { NatsServer } from './support/nats-server';

/**
 * The fault suite (`pnpm test:faults`): the production topology as separate processes on a real
 * NATS (this suite's own nats-server, so it can restart it) and PostgreSQL, launched by
 * `pnpm start:cluster`: two gateways and two replicas of each service. During a 1,000-contact
 * campaign (cap 20) whose agent sends webhooks to a real receiver, one replica of each service and
 * one gateway are killed with SIGKILL (the launcher restarts them) and NATS is restarted. Then:
 * no contact lost, no number dialed twice, no CALL_ENDED missing at the receiver (duplicates are
 * reported, not failed: delivery is at least once), the cap never exceeded, every call final and
 * every campaign count right.
 *
 * Two replicas of every service, as `start:cluster`, compose and Kubernetes run them: a kill is
 * survived by the other replica taking over (queue groups, the shared durable consumers, leases on
 * claimed work) while the launcher restarts the killed one; the NATS restart is the outage that
 * every process lives through at once.
 */

const CONTACTS = 1000;
const CAP = 20;
/** A completed call lasts ~30-100 simulated seconds: ~0.8-2.5 s of wall time here (~65 s in all). */
const SIM_TIME_SCALE = 0.025;
/** Takeover of a killed call replica's calls after this many seconds (default 30). */
const CALL_LEASE_SECONDS = 5;
const FROM = '+14155550100';
const SECRET = 'faults-webhook-secret-0123456789';
const FINAL_CALL = ['completed', 'no_answer', 'failed', 'voicemail', 'busy'];
/** Gap between two faults: each is survived on its own before the next. */
const GAP_MS = 2_000;
/** How long NATS stays down: a restart as an operator's would be, not an instant one. */
const NATS_DOWN_MS = 2_000;
/** An operator's restart (SIGTERM) by default; FAULTS_NATS_SIGNAL=SIGKILL crashes it instead. */
const NATS_STOP_SIGNAL: NodeJS.Signals = process.env.FAULTS_NATS_SIGNAL === 'SIGKILL' ? 'SIGKILL' : 'SIGTERM';
/** Campaign progress (contacts final) before the first fault. */
const FIRST_FAULT_AT = 60;

/** Outcome by the number's last four digits (the simulated carrier's test numbers). */
const TAILS: Record<number, string> = { 1: '0001', 2: '0002', 3: '0003', 4: '0004' };

/**
 * 1,000 contacts: distinct numbers, mostly completing, a few per hundred that end no_answer, busy,
 * voicemail or failed; plus 3 invalid numbers, 2 duplicates and 1 without a number (skipped).
 */
function contactList(): { contacts: Record<string, string>[]; dialable: Set<string>; skipped: number } {
  const contacts: Record<string, string>[] = [];
  const dialable = new Set<string>();
  const bad = 6;
  for (let i = 0; contacts.length < CONTACTS - bad; i++) {
    const tail = TAILS[i % 25] ?? String(5000 + (i % 1000)).padStart(4, '0');
    const phone = `+1415${String(200 + i).padStart(3, '0')}${tail}`;
    contacts.push({ phone, name: `Contact ${i}` });
    dialable.add(phone);
  }
  contacts.splice(100, 0, { phone: 'not-a-number', name: 'Bad 1' });
  contacts.splice(300, 0, { phone: '12', name: 'Bad 2' });
  contacts.splice(500, 0, { phone: '+0123', name: 'Bad 3' });
  contacts.splice(600, 0, { phone: contacts[10]!.phone!, name: 'Duplicate 1' });
  contacts.splice(800, 0, { phone: contacts[20]!.phone!, name: 'Duplicate 2' });
  contacts.splice(900, 0, { name: 'No number' });
  return { contacts, dialable, skipped: bad };
}

interface FaultRecord {
  fault: string;
  at_s: number;
  final_contacts: number;
  down_ms: number;
}

describe('faults during a campaign: production topology, separate processes, real NATS and PostgreSQL', () => {
  let faults: FaultCluster | undefined;
  let sql: postgres.Sql;
  let nats: NatsServer;
  let receiver: WebhookReceiver;
  let cluster: Cluster | undefined;
  let gateways: string[] = [];
  let key: string;
  let agentId: string;
  let clusterStopCode: number | null | undefined;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    faults = await startFaultCluster({
      SIM_TIME_SCALE: String(SIM_TIME_SCALE),
      CALL_LEASE_SECONDS: String(CALL_LEASE_SECONDS),
      WEBHOOK_RETRY_BASE_MS: '1000',
    });
    ({ cluster, nats, sql, gateways } = faults);
    key = (await faults.account('Faults')).key;
    const agent = await api<Envelope<{ id: string }>>(gateways[0]!, 'POST', '/v1/agents', {
      key,
      body: {
        name: 'Faulty',
        start_flow: 'Hi, this is Faulty from Acme.',
        end_flow: 'Thanks, goodbye!',
        webhook_config: { url: `${receiver.url}/ok/faults`, secret: SECRET },
      },
    });
    expect(agent.status, agent.text).toBe(201);
    agentId = agent.body.data.id;
  }, 150_000);

  afterAll(async () => {
    clusterStopCode = await faults?.stop();
    await receiver?.close();
    expect(clusterStopCode, 'every process stopped cleanly on SIGTERM').toBe(0);
  }, 60_000);

  /** GET through either gateway: the next one when one refuses (down, 5xx); counts what failed. */
  const failedRequests = new Map<string, number>();
  const failedSamples: string[] = [];
  let turn = 0;
  async function get<T>(path: string): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const base = gateways[turn++ % gateways.length]!;
      try {
        const res = await api<Envelope<T>>(base, 'GET', path, { key });
        if (res.status === 200) return res.body.data;
        const label = `${base} ${res.status}`;
        failedRequests.set(label, (failedRequests.get(label) ?? 0) + 1);
        if (failedRequests.get(label)! <= 2) failedSamples.push(`${label} ${res.text.slice(0, 300)}`);
      } catch {
        failedRequests.set(`${base} refused`, (failedRequests.get(`${base} refused`) ?? 0) + 1);
      }
      if (Date.now() > deadline) throw new Error(`GET ${path} failed on every gateway for 60 s`);
      await delay(100);
    }
  }

  it('loses nothing and dials no one twice through kill -9 of every role and a NATS restart', async () => {
    const { contacts, dialable, skipped } = contactList();
    expect(contacts).toHaveLength(CONTACTS);
    const created = await api<Envelope<Campaign>>(gateways[0]!, 'POST', '/v1/campaigns', {
      key,
      body: {
        name: 'Faults',
        agent_id: agentId,
        phone_number: FROM,
        contacts,
        max_concurrent_calls: CAP,
      },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = created.body.data.id;
    const t0 = Date.now();
    const seconds = () => Math.round((Date.now() - t0) / 100) / 10;

    // The cap as the database sees it, sampled all along: calls of the campaign not yet ended.
    let maxLive = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM call.calls WHERE campaign_id = ${campaignId} AND ended_at IS NULL`;
        maxLive = Math.max(maxLive, row!.n);
        await delay(100);
      }
    })();
    const finalContacts = async () => {
      const [row] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM campaign.contacts
         WHERE campaign_id = ${campaignId} AND state NOT IN ('pending', 'in_progress')`;
      return row!.n;
    };

    // A client polling the campaign through both gateways in turn, all along (faults included).
    let polling = true;
    let polls = 0;
    const poller = (async () => {
      while (polling) {
        await get<Campaign>(`/v1/campaigns/${campaignId}`);
        polls++;
        await delay(200);
      }
    })();

    // The faults, one after the other, once the campaign is well under way.
    while ((await finalContacts()) < FIRST_FAULT_AT) await delay(100);
    const faults: FaultRecord[] = [];
    const record = async (fault: string, downMs: number) => {
      faults.push({ fault, at_s: seconds(), final_contacts: await finalContacts(), down_ms: downMs });
      await delay(GAP_MS);
    };
    for (const name of ['call-1', 'campaign-1', 'webhook-1', 'agent-1', 'gateway-1']) {
      const { downMs } = await cluster!.killAndAwaitRestart(name);
      await record(`kill -9 ${name}`, downMs);
    }
    const { downMs } = await nats.restart(NATS_DOWN_MS, NATS_STOP_SIGNAL);
    await record(`restart NATS (${NATS_STOP_SIGNAL})`, downMs);
    const lastFaultContacts = faults.at(-1)!.final_contacts;

    // Every gateway again (gateway-1 came back on its port), until the campaign completes.
    let campaign: Campaign;
    for (;;) {
      campaign = await get<Campaign>(`/v1/campaigns/${campaignId}`);
      if (campaign.status === 'completed') break;
      if (Date.now() - t0 > 200_000)
        throw new Error(`campaign not completed: ${JSON.stringify(campaign)}\n${cluster!.tail()}`);
      await delay(250);
    }
    const campaignSeconds = seconds();
    sampling = false;
    polling = false;
    await Promise.all([sampler, poller]);

    const calls: Call[] = [];
    for (let page = 1; ; page++) {
      const found = await get<PageOf<Call>>(`/v1/calls?campaign_id=${campaignId}&page=${page}&page_size=100`);
      calls.push(...found.items);
      if (!found.has_more) break;
    }
    const rows = await sql<
      { position: number; phone_number: string | null; state: string; call_ids: string[] }[]
    >`
      SELECT position, phone_number, state, call_ids FROM campaign.contacts WHERE campaign_id = ${campaignId}`;

    // Every final call's CALL_ENDED at the receiver with a 2xx (retries and leases may take a while).
    const finalCalls = calls.filter((c) => FINAL_CALL.includes(c.status));
    const delivered = () => {
      const bySession = new Map<string, number>();
      for (const r of receiver.received) {
        if (r.answered === null || r.answered < 200 || r.answered >= 300) continue;
        const body = JSON.parse(r.body.toString('utf8')) as { event: string; data: { session_id: string } };
        if (body.event !== 'CALL_ENDED') continue;
        bySession.set(body.data.session_id, (bySession.get(body.data.session_id) ?? 0) + 1);
      }
      return bySession;
    };
    const webhookDeadline = Date.now() + 90_000;
    let bySession = delivered();
    while (finalCalls.some((c) => !bySession.has(c.id)) && Date.now() < webhookDeadline) {
      await delay(250);
      bySession = delivered();
    }
    const webhooksSeconds = seconds();
    const missing = finalCalls.filter((c) => !bySession.has(c.id)).map((c) => c.id);
    const duplicateSessions = [...bySession.values()].filter((n) => n > 1).length;
    const extraDeliveries = [...bySession.values()].reduce((sum, n) => sum + n - 1, 0);

    // Dials per number, contacts per state, overlap on the carrier's clock.
    const dialedTwice = [...dialsPerNumber(calls)].filter(([, n]) => n > 1);
    const byState = new Map<string, number>();
    for (const r of rows) byState.set(r.state, (byState.get(r.state) ?? 0) + 1);
    const overlap = maxOverlap(calls);
    const callById = new Map(calls.map((c) => [c.id, c]));
    const contactOutcomeWrong = rows.filter((r) => {
      if (r.state === 'skipped') return r.call_ids.length !== 0;
      return r.call_ids.length !== 1 || callById.get(r.call_ids[0]!)?.status !== r.state;
    });
    const expectedCounts = {
      total: CONTACTS,
      pending: 0,
      in_progress: 0,
      completed: byState.get('completed') ?? 0,
      no_answer: byState.get('no_answer') ?? 0,
      failed: byState.get('failed') ?? 0,
      voicemail: byState.get('voicemail') ?? 0,
      busy: byState.get('busy') ?? 0,
      skipped: byState.get('skipped') ?? 0,
      cancelled: 0,
    };
    const viaGateway2 = await api<Envelope<Campaign>>(gateways[1]!, 'GET', `/v1/campaigns/${campaignId}`, {
      key,
    });

    const summary: [string, string | number][] = [
      ['contacts', rows.length],
      ['contacts final', rows.filter((r) => !['pending', 'in_progress'].includes(r.state)).length],
      ['contacts skipped (invalid, duplicate, missing)', byState.get('skipped') ?? 0],
      ['calls placed', calls.length],
      ['calls final', finalCalls.length],
      ['numbers dialed twice', dialedTwice.length],
      ['contacts whose state is not their call outcome', contactOutcomeWrong.length],
      ['CALL_ENDED missing at the receiver', missing.length],
      ['CALL_ENDED received more than once (sessions)', duplicateSessions],
      ['extra CALL_ENDED deliveries (beyond one per session)', extraDeliveries],
      ['webhook requests received in all', receiver.received.length],
      ['cap', CAP],
      ['max calls not ended at once (sampled in the database)', maxLive],
      ['max overlap of call intervals (carrier clock)', overlap],
      ['campaign completed after (s)', campaignSeconds],
      ['every CALL_ENDED received after (s)', webhooksSeconds],
      ['final contacts when the last fault was injected', lastFaultContacts],
      ['client polls answered (through both gateways in turn)', polls],
      [
        'client requests refused or failed (retried on the other gateway)',
        [...failedRequests]
          .map(([k, n]) => `${k.replace(/^http:\/\/127\.0\.0\.1:/, ':')} x${n}`)
          .join(', ') || 0,
      ],
      ['outcomes', [...byState].map(([s, n]) => `${s} ${n}`).join(', ')],
    ];
    console.log(
      [
        '',
        'faults injected:',
        ...faults.map(
          (f) =>
            `  ${f.fault.padEnd(22)} at ${String(f.at_s).padStart(5)} s, ${String(f.final_contacts).padStart(4)} contacts final, back after ${f.down_ms} ms`,
        ),
        'result:',
        ...summary.map(([k, v]) => `  ${k.padEnd(64)} ${v}`),
        'the launcher saw:',
        ...cluster!
          .events()
          .filter((l) => l.includes('exited unexpectedly'))
          .map((l) => `  ${l}`),
        ...failedSamples.map((f) => `  failed request: ${f}`),
        '',
      ].join('\n'),
    );

    // The faults landed mid-campaign, or this proved nothing.
    expect(lastFaultContacts, 'the last fault came before the campaign finished').toBeLessThan(
      CONTACTS - 100,
    );
    expect(faults).toHaveLength(6);
    // 0 contacts lost: every contact final, the dialable ones with exactly one call and its outcome.
    expect(rows).toHaveLength(CONTACTS);
    expect(byState.get('pending') ?? 0).toBe(0);
    expect(byState.get('in_progress') ?? 0).toBe(0);
    expect(byState.get('skipped')).toBe(skipped);
    expect(contactOutcomeWrong.map((r) => r.position)).toEqual([]);
    // 0 numbers dialed twice, and every dialable number dialed.
    expect(dialedTwice).toEqual([]);
    expect(new Set(calls.map((c) => c.phone_number))).toEqual(dialable);
    // Every call final.
    expect(calls.filter((c) => !FINAL_CALL.includes(c.status) || !c.ended_at).map((c) => c.id)).toEqual([]);
    // 0 CALL_ENDED missing at the receiver (duplicates are allowed: at least once).
    expect(missing).toEqual([]);
    // The cap never exceeded.
    expect(maxLive).toBeLessThanOrEqual(CAP);
    expect(overlap).toBeLessThanOrEqual(CAP);
    // Every campaign count right, through either gateway.
    expect(campaign.counts).toEqual(expectedCounts);
    expect(viaGateway2.status).toBe(200);
    expect(viaGateway2.body.data.counts).toEqual(expectedCounts);
  }, 330_000);
});
