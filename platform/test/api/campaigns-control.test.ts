import type { Call, CampaignContact, ContactsAdded } from '@voice/shared';
import { infraModes, mostAtOnce } from '@voice/shared/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient, idempotent, type Outputs } from '../../../client/src/index';
import { createKey, type TestAccount } from '../support/accounts';
import type { TestPlatform } from '../support/harness';
import { api as request } from '../support/http';
import {
  type CampaignSuite,
  campaignApi,
  campaignSuite,
  completingNumbers,
  countsSnapshot,
  dialsPerNumber,
  maxOverlap,
} from './campaigns-support';
import { follow } from './trpc-support';

type Issues = { loc: (string | number)[]; msg: string; type: string }[];

/** A completed call takes ~0.5-1 s of wall time: long enough to change a campaign while calls are in flight. */
const SIM_TIME_SCALE = 0.01;
const LATER = () => new Date(Date.now() + 3_600_000).toISOString();

/** The interval of each call, and the campaign position of its contact. */
function callsByPosition(calls: readonly Call[], contacts: readonly CampaignContact[]) {
  const positionOf = new Map<string, number>();
  for (const contact of contacts) for (const id of contact.call_ids) positionOf.set(id, contact.position);
  return calls.map((call) => ({
    position: positionOf.get(call.id)!,
    start: new Date(call.started_at!),
    end: new Date(call.ended_at!),
  }));
}

describe.each(infraModes())('campaigns: live control (%s)', (mode) => {
  const suite = campaignSuite(mode, SIM_TIME_SCALE);
  const { settings, contactsOf } = suite;
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  let api: CampaignSuite['api'];
  beforeAll(() => {
    ({ t, acme, other, api } = suite);
  });

  it('renames and changes a scheduled campaign; refuses bad changes (422), others’ campaigns (404) and finished ones (409)', async () => {
    const created = await api.create(settings({ contacts: contactsOf(['+14155558000']), start_at: LATER() }));
    const renamed = await api.send('PATCH', `/v1/campaigns/${created.id}`, {
      name: 'Autumn outreach',
      max_concurrent_calls: 7,
      retry_config: { max_retries: 2 },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({
      id: created.id,
      name: 'Autumn outreach',
      max_concurrent_calls: 7,
      // A full RetryConfig: omitted fields take their defaults.
      retry_config: { max_retries: 2, on_statuses: ['no_answer', 'busy'], interval_seconds: 300 },
      status: 'scheduled',
    });
    expect(await api.get(created.id)).toEqual(renamed.body.data);
    const stopped = await api.send('PATCH', `/v1/campaigns/${created.id}`, { retry_config: null });
    expect(stopped.body.data).toMatchObject({ retry_config: null, name: 'Autumn outreach' });
    const windowed = await api.send('PATCH', `/v1/campaigns/${created.id}`, {
      calling_window: { days: ['mon', 'tue'], start: '09:00', end: '17:00', timezone: 'Europe/Paris' },
    });
    expect(windowed.status, windowed.text).toBe(200);
    expect(windowed.body.data.calling_window).toEqual({
      days: ['mon', 'tue'],
      start: '09:00',
      end: '17:00',
      timezone: 'Europe/Paris',
      fallback_timezone: 'UTC',
    });
    expect((await api.get(created.id)).calling_window).toEqual(windowed.body.data.calling_window);

    const bad: [unknown, string[]][] = [
      [{}, ['body']],
      [{ max_concurrency: 3 }, ['body']],
      [{ name: 'x', colour: 'red' }, ['body']],
      [{ max_concurrent_calls: 0 }, ['body.max_concurrent_calls']],
      [{ max_concurrent_calls: 51 }, ['body.max_concurrent_calls']],
      [{ max_concurrent_calls: 2.5 }, ['body.max_concurrent_calls']],
      [{ name: '' }, ['body.name']],
      [
        { calling_window: { start: '09:00', end: '17:00', timezone: 'Mars/Olympus' } },
        ['body.calling_window.timezone'],
      ],
      [
        { calling_window: { days: ['mon', 'tues'], start: '09:00', end: '17:00' } },
        ['body.calling_window.days.1'],
      ],
      [
        { retry_config: { max_retries: 9, on_statuses: ['completed'] } },
        ['body.retry_config.max_retries', 'body.retry_config.on_statuses.0'],
      ],
    ];
    for (const [body, locs] of bad) {
      const res = await api.send('PATCH', `/v1/campaigns/${created.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(
        [...new Set((res.body.detail as Issues).map((d) => d.loc.join('.')))].sort(),
        JSON.stringify(body),
      ).toEqual(locs);
    }
    const misspelt = await api.send('PATCH', `/v1/campaigns/${created.id}`, { max_concurrency: 3 });
    expect(misspelt.body.detail as Issues).toContainEqual(
      expect.objectContaining({ loc: ['body'], type: 'unrecognized_keys' }),
    );
    const noBody = await api.send('PATCH', `/v1/campaigns/${created.id}`);
    expect(noBody.status).toBe(422);
    for (const body of [{ contacts: [] }, { contacts: [{ phone: '+14155558001' }], extra: 1 }, {}]) {
      const res = await api.send('POST', `/v1/campaigns/${created.id}/contacts`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect(await api.get(created.id)).toMatchObject({ name: 'Autumn outreach', counts: { total: 1 } });

    const readOnly = campaignApi(t.url, await createKey(t, acme.accountId, ['campaigns:read']));
    expect((await readOnly.send('PATCH', `/v1/campaigns/${created.id}`, { name: 'Read only' })).status).toBe(
      403,
    );
    const readOnlyAdd = await readOnly.send('POST', `/v1/campaigns/${created.id}/contacts`, {
      contacts: [{ phone: '+14155558005' }],
    });
    expect(readOnlyAdd.status).toBe(403);
    const foreign = campaignApi(t.url, other.key);
    for (const [method, path, body] of [
      ['PATCH', `/v1/campaigns/${created.id}`, { name: 'Mine now' }],
      ['POST', `/v1/campaigns/${created.id}/contacts`, { contacts: [{ phone: '+14155558002' }] }],
    ] as const) {
      const res = await foreign.send(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail).toBe('Campaign not found');
    }
    expect(await api.get(created.id)).toMatchObject({ name: 'Autumn outreach', counts: { total: 1 } });

    const cancelled = await api.send('POST', `/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.status).toBe(200);
    const done = await api.create(settings({ contacts: contactsOf(['+14155558003']) }));
    await api.waitFor(done.id, (c) => c.status === 'completed');
    for (const [id, status] of [
      [created.id, 'cancelled'],
      [done.id, 'completed'],
    ] as const) {
      const patched = await api.send('PATCH', `/v1/campaigns/${id}`, { name: 'Too late' });
      expect(patched.status).toBe(409);
      expect(patched.body.detail).toBe(`Cannot change a campaign that is ${status} (status: ${status})`);
      const added = await api.send('POST', `/v1/campaigns/${id}/contacts`, {
        contacts: [{ phone: '+14155558004' }],
      });
      expect(added.status).toBe(409);
      expect(added.body.detail).toBe(
        `Cannot add contacts to a campaign that is ${status} (status: ${status})`,
      );
      expect((await api.get(id)).counts.total).toBe(1);
    }
  });

  it('replaces or removes the calling window: contacts waiting for the old one’s opening are judged again at once', async () => {
    // A window two hours ahead of now in UTC: closed now, so every contact waits for its opening.
    const start = (new Date().getUTCHours() + 2) % 24;
    const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
    const closed = { timezone: 'UTC', start: hh(start), end: start === 23 ? '24:00' : hh(start + 1) };
    const numbers = completingNumbers(3, '+1415566');
    const created = await api.create(settings({ contacts: contactsOf(numbers), calling_window: closed }));
    const deadline = Date.now() + 60_000;
    while (!(await api.contacts(created.id)).every((c) => c.state === 'pending' && c.next_attempt_at)) {
      if (Date.now() > deadline) throw new Error('the contacts never waited for the window');
      await new Promise((r) => setTimeout(r, 40));
    }
    const bad = await api.send('PATCH', `/v1/campaigns/${created.id}`, {
      calling_window: { ...closed, end: closed.start },
    });
    expect(bad.status).toBe(422);
    expect((bad.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(['body.calling_window.end']);
    const open = await api.send('PATCH', `/v1/campaigns/${created.id}`, { calling_window: null });
    expect(open.status, open.text).toBe(200);
    expect(open.body.data.calling_window).toBeNull();
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts.completed).toBe(3);
    expect(dialsPerNumber(await api.calls(created.id))).toEqual(new Map(numbers.map((n) => [n, 1])));
  });

  it('lowers the cap mid-run: no call is cut, and no new call starts until fewer than the new cap are in flight', async () => {
    const numbers = completingNumbers(12, '+1415561');
    const created = await api.create(settings({ contacts: contactsOf(numbers), max_concurrent_calls: 4 }));
    await api.waitFor(created.id, (c) => c.counts.in_progress === 4);
    const lowered = await api.send('PATCH', `/v1/campaigns/${created.id}`, { max_concurrent_calls: 1 });
    expect(lowered.status, lowered.text).toBe(200);
    expect(lowered.body.data.max_concurrent_calls).toBe(1);
    // Contacts are claimed in position order: those before `claimed` were claimed under the old cap.
    const claimed = 12 - lowered.body.data.counts.pending;
    expect(lowered.body.data.counts.in_progress).toBeGreaterThan(1);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 12, completed: 12, failed: 0 });
    const calls = await api.calls(created.id);
    // Nobody was hung up on: every call completed, each number once.
    expect(calls.every((call) => call.status === 'completed')).toBe(true);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    const intervals = callsByPosition(calls, await api.contacts(created.id));
    const later = intervals.filter((call) => call.position >= claimed);
    expect(later.length).toBeGreaterThan(0);
    // Each call claimed under the new cap of 1 started with no other call of the campaign open.
    for (const call of later) {
      const open = intervals.filter(
        (other) => other !== call && other.start <= call.start && other.end > call.start,
      );
      expect(open, `the call of position ${call.position}`).toEqual([]);
    }
    expect(mostAtOnce(later)).toBe(1);
    expect(maxOverlap(calls)).toBeLessThanOrEqual(4);
  });

  it('raises the cap mid-run: more calls are in flight at once, never more than the new cap', async () => {
    const numbers = completingNumbers(12, '+1415562');
    const created = await api.create(settings({ contacts: contactsOf(numbers), max_concurrent_calls: 1 }));
    await api.waitFor(created.id, (c) => c.counts.in_progress === 1);
    const raised = await api.send('PATCH', `/v1/campaigns/${created.id}`, { max_concurrent_calls: 3 });
    expect(raised.status, raised.text).toBe(200);
    await api.waitFor(created.id, (c) => c.counts.in_progress === 3);
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts.completed).toBe(12);
    const calls = await api.calls(created.id);
    expect(maxOverlap(calls)).toBeGreaterThan(1);
    expect(maxOverlap(calls)).toBeLessThanOrEqual(3);
  });

  it('applies a changed retry_config to outcomes from then on; a retry already scheduled keeps its time', async () => {
    const noAnswer = '+14155560001';
    const created = await api.create(
      settings({
        contacts: contactsOf([noAnswer]),
        retry_config: { on_statuses: ['no_answer'], max_retries: 5, interval_seconds: 2 },
      }),
    );
    let waiting: CampaignContact | undefined;
    for (const deadline = Date.now() + 60_000; !waiting; ) {
      const [contact] = await api.contacts(created.id);
      if (contact?.attempts === 1 && contact.state === 'pending') waiting = contact;
      else if (Date.now() > deadline) throw new Error('the first attempt never ended');
      else await new Promise((r) => setTimeout(r, 40));
    }
    const stopped = await api.send('PATCH', `/v1/campaigns/${created.id}`, { retry_config: null });
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body.data.retry_config).toBeNull();
    const [kept] = await api.contacts(created.id);
    expect(kept!.next_attempt_at).toBe(waiting.next_attempt_at);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ no_answer: 1, pending: 0 });
    const [contact] = await api.contacts(created.id);
    // The scheduled retry was dialed; its outcome, under no retry rules, was final.
    expect(contact).toMatchObject({ state: 'no_answer', attempts: 2 });
    const calls = (await api.calls(created.id)).sort((a, b) => a.started_at!.localeCompare(b.started_at!));
    expect(calls).toHaveLength(2);
    expect(Date.parse(calls[1]!.started_at!)).toBeGreaterThanOrEqual(Date.parse(waiting.next_attempt_at!));
  });

  it('adds contacts to a running campaign: dialed and counted, duplicates of its numbers skipped, once per Idempotency-Key', async () => {
    const numbers = completingNumbers(6, '+1415563');
    const created = await api.create(
      settings({ contacts: contactsOf(numbers.slice(0, 4)), max_concurrent_calls: 2 }),
    );
    const body = {
      contacts: [
        { phone: numbers[4]!, name: 'New 1' },
        { phone: numbers[0]!, name: 'Already there' },
        { phone: numbers[5]!, name: 'New 2' },
        { phone: numbers[5]!, name: 'Twice in the request' },
        { name: 'No number' },
        { phone: '0123', name: 'Not E.164' },
      ],
    };
    const headers = { 'idempotency-key': `add-contacts-${mode}-${Date.now()}` };
    const res = await api.send<ContactsAdded>('POST', `/v1/campaigns/${created.id}/contacts`, body, headers);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      received: 6,
      added: 2,
      skipped: { missing_phone: 1, invalid_phone: 1, duplicate: 2 },
      campaign: { id: created.id, status: 'running', counts: { total: 10 } },
    });
    const snapshot = await countsSnapshot(suite.sql, created.id);
    expect(snapshot.stored).toEqual(snapshot.recounted);
    const again = await api.send<ContactsAdded>(
      'POST',
      `/v1/campaigns/${created.id}/contacts`,
      body,
      headers,
    );
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(res.body.data);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 10, completed: 6, skipped: 4, pending: 0 });
    const final = await countsSnapshot(suite.sql, created.id);
    expect(final.stored).toEqual(final.recounted);
    const calls = await api.calls(created.id);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    expect(maxOverlap(calls)).toBeLessThanOrEqual(2);
    const contacts = await api.contacts(created.id);
    expect(contacts.map((c) => [c.position, c.state, c.skip_reason])).toEqual([
      [0, 'completed', null],
      [1, 'completed', null],
      [2, 'completed', null],
      [3, 'completed', null],
      [4, 'completed', null],
      [5, 'skipped', 'duplicate'],
      [6, 'completed', null],
      [7, 'skipped', 'duplicate'],
      [8, 'skipped', 'missing_phone'],
      [9, 'skipped', 'invalid_phone'],
    ]);
    expect(contacts[6]!.data).toEqual({ name: 'New 2' });
  });

  it('adds contacts to a campaign still preparing (checked against the whole list) and to a paused one (dialed on resume)', async () => {
    const numbers = completingNumbers(5, '+1415564');
    // Seven steps of preparation: the addition comes while they run.
    const created = await api.create(
      settings({
        max_concurrent_calls: 2,
        contacts: Array.from({ length: 30_001 }, (_, i) => ({
          phone: numbers[i % 3]!,
          name: `Contact ${i}`,
        })),
      }),
    );
    expect(created.status).toBe('preparing');
    const res = await api.send<ContactsAdded>('POST', `/v1/campaigns/${created.id}/contacts`, {
      contacts: [{ phone: numbers[2]! }, { phone: numbers[3]! }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      added: 1,
      skipped: { duplicate: 1 },
      campaign: { status: 'preparing', counts: { total: 30_003 } },
    });
    const running = await api.waitFor(created.id, (c) => c.status !== 'preparing');
    expect(running.status).toBe('running');
    const paused = await api.send('POST', `/v1/campaigns/${created.id}/pause`);
    expect(paused.status, paused.text).toBe(200);
    const late = await api.send<ContactsAdded>('POST', `/v1/campaigns/${created.id}/contacts`, {
      contacts: [{ phone: numbers[4]! }, { phone: numbers[0]! }],
    });
    expect(late.body.data).toMatchObject({
      added: 1,
      skipped: { duplicate: 1 },
      campaign: { status: 'paused' },
    });
    const settled = await api.waitFor(created.id, (c) => c.counts.in_progress === 0);
    expect(settled.status).toBe('paused');
    const resumedAt = Date.now();
    expect((await api.send('POST', `/v1/campaigns/${created.id}/resume`)).status).toBe(200);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 30_005, completed: 5, skipped: 30_000, pending: 0 });
    const final = await countsSnapshot(suite.sql, created.id);
    expect(final.stored).toEqual(final.recounted);
    const calls = await api.calls(created.id);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    // Added while paused: dialed only once resumed.
    const lateCall = calls.find((call) => call.phone_number === numbers[4])!;
    expect(Date.parse(lateCall.started_at!)).toBeGreaterThanOrEqual(resumedAt);
  });

  it('holds a campaign to 100,000 contacts: a bulk add up to it lands whole, one past it is a 422 adding nothing', async () => {
    const created = await api.create(settings({ contacts: contactsOf(['+14155564000']), start_at: LATER() }));
    const bulk = Array.from({ length: 99_999 }, (_, i) => ({ phone: `+1416${String(i).padStart(7, '0')}` }));
    const res = await api.send<ContactsAdded>('POST', `/v1/campaigns/${created.id}/contacts`, {
      contacts: bulk,
    });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.data).toMatchObject({
      received: 99_999,
      added: 99_999,
      campaign: { counts: { total: 100_000 } },
    });

    const over = await api.send('POST', `/v1/campaigns/${created.id}/contacts`, {
      contacts: [{ phone: '+14155564001' }],
    });
    expect(over.status).toBe(422);
    expect((over.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(['body.contacts']);
    expect((await api.get(created.id)).counts).toMatchObject({ total: 100_000, pending: 100_000 });

    // A bulk add that does not fit, on a campaign with room for part of it: nothing of it is added.
    const small = await api.create(settings({ contacts: contactsOf(['+14155564002']), start_at: LATER() }));
    const tooMany = await api.send('POST', `/v1/campaigns/${small.id}/contacts`, {
      contacts: [...bulk, { phone: '+14155564003' }],
    });
    expect(tooMany.status).toBe(422);
    expect((await api.get(small.id)).counts).toMatchObject({ total: 1, pending: 1 });
    const held = await suite.sql`
      SELECT 1 FROM campaign.contact_additions WHERE campaign_id IN (${created.id}, ${small.id})`;
    expect(held).toHaveLength(0);
    for (const id of [created.id, small.id])
      expect((await api.send('POST', `/v1/campaigns/${id}/cancel`)).status).toBe(200);
  });

  it('offers both over GraphQL and tRPC, and live subscriptions see the change', async () => {
    const created = await api.create(settings({ contacts: contactsOf(['+14155565000']), start_at: LATER() }));
    const gql = await request<{ data?: Record<string, unknown>; errors?: unknown[] }>(
      t.url,
      'POST',
      '/graphql',
      {
        key: acme.key,
        body: {
          query: `mutation($id: ID!) {
          updateCampaign(id: $id, input: { name: "Over GraphQL", maxConcurrentCalls: 3, retryConfig: null }) {
            name maxConcurrentCalls retryConfig { maxRetries }
          }
          addCampaignContacts(id: $id, input: { contacts: [{ phone: "+14155565001" }, { phone: "+14155565000" }] }) {
            received added skipped { duplicate missingPhone invalidPhone } campaign { counts { total } }
          }
        }`,
          variables: { id: created.id },
        },
      },
    );
    expect(gql.body.errors, gql.text).toBeUndefined();
    expect(gql.body.data).toEqual({
      updateCampaign: { name: 'Over GraphQL', maxConcurrentCalls: 3, retryConfig: null },
      addCampaignContacts: {
        received: 2,
        added: 1,
        skipped: { duplicate: 1, missingPhone: 0, invalidPhone: 0 },
        campaign: { counts: { total: 3 } },
      },
    });
    const gqlConflict = await request<{ errors?: { extensions: { code: string } }[] }>(
      t.url,
      'POST',
      '/graphql',
      {
        key: other.key,
        body: {
          query: `mutation($id: ID!) { updateCampaign(id: $id, input: { name: "x" }) { id } }`,
          variables: { id: created.id },
        },
      },
    );
    expect(gqlConflict.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');

    const client = createVoiceClient({ url: t.url, apiKey: acme.key });
    const progress = follow<Outputs['campaigns']['get']>(
      (handlers) => client.campaigns.onProgress.subscribe({ id: created.id }, handlers),
      (got) => got.some((e) => e.data.name === 'Over tRPC' && e.data.counts.total === 4),
    );
    await progress.started;
    const updated = await client.campaigns.update.mutate({
      id: created.id,
      max_concurrent_calls: 5,
      name: 'Over tRPC',
    });
    expect(updated).toMatchObject({ name: 'Over tRPC', max_concurrent_calls: 5 });
    const added = await client.campaigns.addContacts.mutate(
      { id: created.id, contacts: [{ phone: '+14155565002' }] },
      idempotent(`trpc-add-${mode}-${Date.now()}`),
    );
    expect(added).toMatchObject({ received: 1, added: 1, campaign: { counts: { total: 4 } } });
    await progress.done;
    progress.stop();
    expect(progress.errors).toEqual([]);
    expect(progress.got.at(-1)!.data).toMatchObject({ name: 'Over tRPC', max_concurrent_calls: 5 });
    expect((await api.send('POST', `/v1/campaigns/${created.id}/cancel`)).status).toBe(200);
  });
});
