import { randomBytes } from 'node:crypto';
import {
  type Call,
  type CampaignContact,
  ENDPOINT_EVENT_KINDS,
  type EndpointEventBody,
  type WebhookEndpointWithSecret,
} from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignApi, createAgent, FROM, pollingAccount } from './api/campaigns-support';
import { api, type Envelope } from './support/http';
import type { NatsTopology } from './support/nats-topology';
import { pollUntil } from './support/poll';
import { signatureVerifies, type WebhookReceiver } from './support/webhook-receiver';
import { startWebhookTopology, type WebhookTopology } from './support/webhook-topology';

/** A delivery refused once is retried this much later: long enough that the kill finds some waiting. */
const RETRY_BASE_MS = 2000;
const WINDOW = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '20:00' };
const RETRY = { on_statuses: ['no_answer'], max_retries: 1, interval_seconds: 1 };
/**
 * The test clock's times, Monday 30 November 2026 (the window is 08:00-20:00 local: London
 * 08:00-20:00Z, New York 13:00Z-01:00Z, Chicago 14:00Z-02:00Z, Los Angeles 16:00Z-04:00Z). Each
 * restart of the campaign service moves its clock forward to the next; every window open at one
 * stays open at the next, so a placement re-sent after a restart is still inside its window.
 */
const NEW_YORK_AND_LONDON_OPEN = '2026-11-30T13:30:00.000Z';
const CHICAGO_OPEN = '2026-11-30T14:30:00.000Z';
const LOS_ANGELES_OPEN = '2026-11-30T16:30:00.000Z';
const OPENS = {
  'America/Chicago': '2026-11-30T14:00:00.000Z',
  'America/Los_Angeles': '2026-11-30T16:00:00.000Z',
};

type Zone = 'Europe/London' | 'America/New_York' | 'America/Chicago' | 'America/Los_Angeles';
interface TestContact {
  phone: string;
  /** The zone the test expects it called in (from its `timezone` key, else its number). */
  zone: Zone;
  /** Sent as the contact's `timezone` key. */
  key?: Zone;
  /** On the do-not-call list: before the campaign starts, or once it runs. */
  doNotCall?: 'before' | 'while running';
}

// Waiting contacts first: the first claim judges (and defers) them before it finds the open ones.
// Numbers ending 0001 are never answered (retried once, then exhausted); others complete.
const CONTACTS: readonly TestContact[] = [
  { phone: '+13125552104', zone: 'America/Chicago' },
  { phone: '+13125550001', zone: 'America/Chicago' },
  { phone: '+12125552105', zone: 'America/Chicago', key: 'America/Chicago' },
  { phone: '+14155552106', zone: 'America/Los_Angeles' },
  { phone: '+12125552107', zone: 'America/Los_Angeles', key: 'America/Los_Angeles' },
  { phone: '+14155552108', zone: 'America/Los_Angeles', doNotCall: 'while running' },
  { phone: '+13125552109', zone: 'America/Chicago', doNotCall: 'before' },
  { phone: '+12125552103', zone: 'America/New_York', doNotCall: 'before' },
  { phone: '+12125552101', zone: 'America/New_York' },
  { phone: '+12125550001', zone: 'America/New_York' },
  { phone: '+13125552102', zone: 'Europe/London', key: 'Europe/London' },
  { phone: '+12125552110', zone: 'America/New_York' },
];
const byPhone = new Map(CONTACTS.map((c) => [c.phone, c]));
const inZones = (...zones: Zone[]) => CONTACTS.filter((c) => !c.doNotCall && zones.includes(c.zone));

/** One campaign service process's clock: `shown` at the real instant `anchor`, at real speed. */
interface ClockSegment {
  anchor: number;
  shown: number;
}

/** The weekday and minutes past midnight at `at` in `zone`. */
function localTime(at: number, zone: string): { weekday: string; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(at));
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return {
    weekday: part('weekday').toLowerCase(),
    minutes: Number(part('hour')) * 60 + Number(part('minute')),
  };
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** What an event is about: the call, the campaign or the contact. */
function subjectOf(body: EndpointEventBody): string {
  const data = body.data as { session_id?: string; id?: string; contact?: { id: string } };
  if (body.event.startsWith('CALL_')) return data.session_id!;
  if (body.event === 'CONTACT_EXHAUSTED') return data.contact!.id;
  return data.id!;
}

/**
 * Issue 28's combined restart: a windowed campaign (each contact in its own zone) with numbers on
 * the do-not-call list and an account endpoint subscribed to every event, every service its own
 * process on NATS. The campaign service is killed (-9) while contacts are being dialed and the
 * webhook service while deliveries wait for their retry; each restart of the campaign service
 * moves its test clock to the next window's opening. Nobody is dialed outside their window, no
 * listed number is dialed, and every event reaches the endpoint exactly once, signed.
 */
describe.runIf(infraModes().includes('nats'))(
  'windowed campaign with do-not-call and endpoint events across kill -9 (NATS + PostgreSQL)',
  () => {
    const adminToken = `admin-${randomBytes(16).toString('hex')}`;
    const segments: ClockSegment[] = [];
    /** A VOICE_TEST_CLOCK showing `shown` from now on; recorded to map real instants to it. */
    const clockFrom = (shown: string): string => {
      const anchor = Date.now();
      segments.push({ anchor, shown: Date.parse(shown) });
      return `${shown}@${anchor}x1`;
    };
    /** The campaign service's time at a real instant: the clock of the process that ran then. */
    const shownAt = (real: number): number => {
      const segment = segments.findLast((s) => s.anchor <= real)!;
      return segment.shown + (real - segment.anchor);
    };
    let running: WebhookTopology | undefined;
    let sql: postgres.Sql;
    let receiver: WebhookReceiver;
    let topology: NatsTopology;
    let key: string;
    let agentId: string;
    let endpoint: WebhookEndpointWithSecret;

    beforeAll(async () => {
      running = await startWebhookTopology({
        prefix: 'compliance',
        adminToken,
        simTimeScale: 0.004,
        retryBaseMs: RETRY_BASE_MS,
        services: ['agent', 'call', 'webhook', 'telephony', 'campaign'],
        roleEnv: { campaign: { NODE_ENV: 'test', VOICE_TEST_CLOCK: clockFrom(NEW_YORK_AND_LONDON_OPEN) } },
      });
      ({ sql, receiver, topology } = running);
      const url = topology.gatewayUrl;
      ({ key } = await pollingAccount({ url, adminToken }, 'Compliance restart'));
      agentId = await createAgent(url, key);
      const created = await api<Envelope<WebhookEndpointWithSecret>>(url, 'POST', '/v1/webhook-endpoints', {
        key,
        body: { url: `${receiver.url}/endpoint`, events: ENDPOINT_EVENT_KINDS },
      });
      expect(created.status, created.text).toBe(201);
      endpoint = created.body.data;
      // Six processes start at once: on a loaded machine that takes a while.
    }, 240_000);

    afterAll(async () => {
      await running?.stop();
    });

    const listDoNotCall = async (numbers: string[]) => {
      const res = await api(topology.gatewayUrl, 'POST', '/v1/do-not-call', { key, body: { numbers } });
      expect(res.status, res.text).toBe(200);
    };

    const endpointDeliveries = () =>
      sql<{ event_id: string; status: string; attempt_count: number }[]>`
        SELECT event_id, status, attempt_count FROM webhook.deliveries WHERE endpoint_id = ${endpoint.id}`;

    it('dials only inside each window and no listed number, and delivers every event once', async () => {
      const client = campaignApi(topology.gatewayUrl, key);
      await listDoNotCall(CONTACTS.filter((c) => c.doNotCall === 'before').map((c) => c.phone));
      // Every first attempt is refused: retries wait in the table when the webhook service is killed.
      const refusedOnce = new Set<string>();
      receiver.answerWith((_path, headers) => {
        const eventId = String(headers['x-service-event-id']);
        if (refusedOnce.has(eventId)) return { status: 200 };
        refusedOnce.add(eventId);
        return { status: 503 };
      });

      const created = await client.create({
        name: 'Compliance across restarts',
        agent_id: agentId,
        phone_number: FROM,
        max_concurrent_calls: 2,
        retry_config: RETRY,
        calling_window: { ...WINDOW, timezone: 'recipient' },
        contacts: CONTACTS.map((c) => ({ phone: c.phone, ...(c.key ? { timezone: c.key } : {}) })),
      });
      const campaignId = created.id;
      expect((await client.waitFor(campaignId, (c) => c.status === 'running')).status).toBe('running');
      await listDoNotCall(CONTACTS.filter((c) => c.doNotCall === 'while running').map((c) => c.phone));

      const contactsNow = () =>
        sql<{ phone_number: string; state: string; attempts: number; next_attempt_at: Date | null }[]>`
          SELECT phone_number, state, attempts, next_attempt_at FROM campaign.contacts
           WHERE campaign_id = ${campaignId}`;
      const waiting = (zones: Zone[]) => inZones(...zones).map((c) => c.phone);
      /** The contacts of these zones wait for their window's opening, never dialed. */
      const expectWaiting = async (zones: Zone[]) => {
        const rows = await contactsNow();
        for (const phone of waiting(zones)) {
          const row = rows.find((r) => r.phone_number === phone)!;
          const zone = byPhone.get(phone)!.zone as keyof typeof OPENS;
          expect(row, phone).toMatchObject({ state: 'pending', attempts: 0 });
          expect(row.next_attempt_at?.toISOString(), phone).toBe(OPENS[zone]);
        }
      };

      // Kill -9 of the campaign service while New York and London are being dialed, the others
      // deferred to their openings; then of the webhook service with deliveries waiting for a retry.
      await pollUntil(
        async () => ({ contacts: await contactsNow(), deliveries: await endpointDeliveries() }),
        ({ contacts, deliveries }) =>
          contacts.some((c) => c.state === 'in_progress') &&
          waiting(['America/Chicago', 'America/Los_Angeles']).every(
            (phone) => contacts.find((c) => c.phone_number === phone)?.next_attempt_at,
          ) &&
          deliveries.some((d) => d.attempt_count >= 1 && d.status !== 'succeeded'),
        'no contact being dialed with deliveries waiting',
      );
      expect(await topology.kill('campaign')).toBeNull();
      await expectWaiting(['America/Chicago', 'America/Los_Angeles']);
      // From here until the kill, no request is answered 2xx, and every 2xx answered so far is
      // recorded: a 2xx never lands unrecorded on the kill (which would be sent again, rightly).
      receiver.answerWith(() => ({ status: 503 }));
      const answered = () =>
        new Set(
          receiver.received.filter((r) => r.answered === 200).map((r) => r.headers['x-service-event-id']),
        );
      await pollUntil(
        endpointDeliveries,
        (rows) => {
          const succeeded = new Set(rows.filter((r) => r.status === 'succeeded').map((r) => r.event_id));
          return [...answered()].every((id) => succeeded.has(String(id)));
        },
        'a 2xx not recorded',
      );
      const pendingAtKill = (await endpointDeliveries()).filter((d) => d.status !== 'succeeded');
      expect(pendingAtKill.length).toBeGreaterThan(0);
      expect(await topology.kill('webhook')).toBeNull();
      receiver.answerWith(() => ({ status: 200 }));

      // The clock moves to Chicago's window: its contacts are dialed (their events wait in the
      // streams, the webhook service down); kill -9 again once one was claimed.
      await topology.restart('campaign', { VOICE_TEST_CLOCK: clockFrom(CHICAGO_OPEN) });
      await pollUntil(
        contactsNow,
        (rows) => rows.some((r) => byPhone.get(r.phone_number)!.zone === 'America/Chicago' && r.attempts > 0),
        'Chicago not dialed',
      );
      expect(await topology.kill('campaign')).toBeNull();
      await expectWaiting(['America/Los_Angeles']);
      await topology.restart('webhook');
      await topology.restart('campaign', { VOICE_TEST_CLOCK: clockFrom(LOS_ANGELES_OPEN) });

      const campaign = await client.waitFor(campaignId, (c) => c.status === 'completed', 90_000);
      const contacts: CampaignContact[] = await client.contacts(campaignId);
      const calls: Call[] = await client.calls(campaignId);

      // Listed numbers: skipped as do_not_call, never dialed (no call record at all; a contact
      // refused at placement counts that attempt, so its attempts say nothing here).
      const listed = CONTACTS.filter((c) => c.doNotCall).map((c) => c.phone);
      for (const phone of listed) {
        const contact = contacts.find((c) => c.phone_number === phone);
        expect(contact, phone).toMatchObject({ state: 'skipped', skip_reason: 'do_not_call' });
      }
      const [dialedListed] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM call.calls WHERE phone_number = ANY(${listed}::text[])`;
      expect(dialedListed!.n).toBe(0);

      // Everyone else was dialed, each call inside the window in the contact's own zone, on the
      // campaign service's clock at the moment the call was placed.
      const dialable = contacts.filter((c) => !byPhone.get(c.phone_number!)!.doNotCall);
      for (const contact of dialable) expect(contact.attempts, contact.phone_number!).toBeGreaterThan(0);
      expect(calls.length).toBe(dialable.reduce((n, c) => n + c.attempts, 0));
      for (const call of calls) {
        const zone = byPhone.get(call.phone_number)!.zone;
        const local = localTime(shownAt(Date.parse(call.created_at)), zone);
        const at = `${call.phone_number} (${zone}) dialed ${local.weekday} minute ${local.minutes}`;
        expect(WINDOW.days, at).toContain(local.weekday);
        expect(local.minutes, at).toBeGreaterThanOrEqual(minutesOf(WINDOW.start));
        expect(local.minutes, at).toBeLessThan(minutesOf(WINDOW.end));
      }

      // The events that occurred, from the final state: each call's ringing, answer and end as it
      // went, the campaign's start and completion, and each contact whose retries are spent.
      const expected = new Set<string>();
      for (const call of calls) {
        if (call.status !== 'failed') expected.add(`CALL_RINGING/${call.id}`);
        if (call.status === 'completed') expected.add(`CALL_ANSWERED/${call.id}`);
        expected.add(`CALL_ENDED/${call.id}`);
      }
      if (campaign.started_at) expected.add(`CAMPAIGN_STARTED/${campaignId}`);
      expected.add(`CAMPAIGN_COMPLETED/${campaignId}`);
      const exhausted = contacts.filter(
        (c) => (RETRY.on_statuses as string[]).includes(c.state) && c.attempts === 1 + RETRY.max_retries,
      );
      expect(exhausted.length).toBeGreaterThan(0);
      for (const c of exhausted) expected.add(`CONTACT_EXHAUSTED/${c.id}`);

      const delivered = (): Map<string, EndpointEventBody[]> => {
        const found = new Map<string, EndpointEventBody[]>();
        for (const r of receiver.received.filter((x) => x.answered === 200)) {
          const body = JSON.parse(r.body.toString()) as EndpointEventBody;
          const subject = `${body.event}/${subjectOf(body)}`;
          found.set(subject, [...(found.get(subject) ?? []), body]);
        }
        return found;
      };
      // Done once every delivery stored succeeded (nothing more is sent) and every event arrived.
      await pollUntil(
        async () => ({ rows: await endpointDeliveries(), found: delivered() }),
        ({ rows, found }) =>
          rows.every((r) => r.status === 'succeeded') && [...expected].every((e) => found.has(e)),
        'not every event delivered',
      );
      const found = delivered();
      expect([...found.keys()].sort()).toEqual([...expected].sort());
      const perEventId = new Map<string, number>();
      for (const r of receiver.received.filter((x) => x.answered === 200)) {
        const body = JSON.parse(r.body.toString()) as EndpointEventBody;
        expect(r.headers['x-service-event-id']).toBe(body.event_id);
        expect(
          signatureVerifies(endpoint.secret, r.body, String(r.headers['x-service-signature'])),
          body.event_id,
        ).toBe(true);
        perEventId.set(body.event_id, (perEventId.get(body.event_id) ?? 0) + 1);
      }
      // Exactly once: one event id per occurrence, each delivered with a 2xx once.
      for (const [subject, bodies] of found) expect(bodies.length, subject).toBe(1);
      for (const [id, n] of perEventId) expect(n, `event ${id} received with a 2xx`).toBe(1);
      expect((await endpointDeliveries()).length).toBe(expected.size);
    }, 240_000);
  },
);
