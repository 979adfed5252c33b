import type { Campaign, CampaignContact } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import type { TestAccount } from '../support/accounts';
import { ManualClock } from '../support/clock';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';
import { campaignApi, createAgent, dialsPerNumber, FROM, pollingAccount } from './campaigns-support';
import { failure } from './trpc-support';

/** A completed call takes well under a second of wall time. */
const SIM_TIME_SCALE = 0.004;
/** Weekdays 09:00 to 17:00 in each recipient's zone. */
const OFFICE_HOURS = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' };
// Monday 30 November 2026. New York is UTC-5, Los Angeles UTC-8.
const NY_OPENS = '2026-11-30T14:00:00.000Z';
const LA_OPENS = '2026-11-30T17:00:00.000Z';

/**
 * Calling windows through the platform. The campaign service runs on a ManualClock: the test
 * moves it, and the dispatcher's poll (every 500 ms of real time) judges due contacts by it.
 */
describe.each(infraModes())('campaign calling windows (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;
  let client: ReturnType<typeof campaignApi>;
  const clock = new ManualClock('2026-11-30T12:00:00Z');

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE }, campaignClock: clock });
    acme = await pollingAccount(t, 'Acme');
    agentId = await createAgent(t.url, acme.key);
    client = campaignApi(t.url, acme.key);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const settings = (extra: Record<string, unknown>) => ({
    name: 'Windowed',
    agent_id: agentId,
    phone_number: FROM,
    max_concurrent_calls: 4,
    ...extra,
  });

  /** Polls the campaign's contacts until `done` holds for them. */
  async function contactsWhen(
    id: string,
    done: (contacts: CampaignContact[]) => boolean,
  ): Promise<CampaignContact[]> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const contacts = await client.contacts(id);
      if (done(contacts)) return contacts;
      if (Date.now() > deadline) throw new Error(`contacts never got there: ${JSON.stringify(contacts)}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }
  const byNumber = (contacts: CampaignContact[]): Record<string, CampaignContact> =>
    Object.fromEntries(contacts.map((c) => [c.phone_number ?? '', c]));

  it('dials each contact only once its own window opens: zone from its timezone key, else its number', async () => {
    clock.set('2026-11-30T12:00:00Z'); // 07:00 in New York, 04:00 in Los Angeles
    const contacts = [
      { phone: '+12125552000' }, // New York, from the number
      { phone: '+14155552001', timezone: 'America/New_York' }, // the key wins over the number
      { phone: '+14155552002' }, // Los Angeles, from the number
      { phone: '+12125552003', timezone: 'America/Los_Angeles' },
    ];
    const created = await client.create(settings({ contacts, calling_window: OFFICE_HOURS }));
    expect(created.calling_window).toEqual({
      ...OFFICE_HOURS,
      timezone: 'recipient',
      fallback_timezone: 'UTC',
    });

    // Judged and sent to wait (still pending, nothing dialed) until their zone's 09:00.
    const waiting = byNumber(await contactsWhen(created.id, (cs) => cs.every((c) => c.next_attempt_at)));
    expect(Object.values(waiting).map((c) => [c.state, c.attempts])).toEqual(
      Array.from({ length: 4 }, () => ['pending', 0]),
    );
    expect(waiting['+12125552000']!.next_attempt_at).toBe(NY_OPENS);
    expect(waiting['+14155552001']!.next_attempt_at).toBe(NY_OPENS);
    expect(waiting['+14155552002']!.next_attempt_at).toBe(LA_OPENS);
    expect(waiting['+12125552003']!.next_attempt_at).toBe(LA_OPENS);
    expect(await client.calls(created.id)).toEqual([]);
    expect((await client.get(created.id)).counts).toMatchObject({ total: 4, pending: 4, in_progress: 0 });

    clock.set(NY_OPENS);
    const nyDone = byNumber(
      await contactsWhen(created.id, (cs) => cs.filter((c) => c.state === 'completed').length === 2),
    );
    expect(nyDone['+12125552000']!.state).toBe('completed');
    expect(nyDone['+14155552001']!.state).toBe('completed');
    expect(nyDone['+14155552002']).toMatchObject({
      state: 'pending',
      attempts: 0,
      next_attempt_at: LA_OPENS,
    });
    expect(nyDone['+12125552003']).toMatchObject({
      state: 'pending',
      attempts: 0,
      next_attempt_at: LA_OPENS,
    });
    expect([...dialsPerNumber(await client.calls(created.id)).keys()].sort()).toEqual([
      '+12125552000',
      '+14155552001',
    ]);
    expect((await client.get(created.id)).counts).toMatchObject({ pending: 2, completed: 2 });

    clock.set(LA_OPENS);
    const done = await client.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 4, completed: 4, pending: 0 });
    expect(dialsPerNumber(await client.calls(created.id))).toEqual(
      new Map(contacts.map((c) => [c.phone, 1])),
    );
  });

  it('a retry falling outside the window waits for the next opening', async () => {
    clock.set('2026-11-30T21:59:00Z'); // 16:59 in New York: inside, for one more minute
    const created = await client.create(
      settings({
        contacts: [{ phone: '+12125550001' }], // the simulated carrier: nobody answers
        calling_window: OFFICE_HOURS,
        retry_config: { on_statuses: ['no_answer'], max_retries: 1, interval_seconds: 120 },
      }),
    );
    // Dialed at once; its retry is due at 17:01 New York time, after the window closed.
    const [retry] = await contactsWhen(created.id, ([c]) => c?.attempts === 1 && c.state === 'pending');
    expect(retry!.next_attempt_at).toBe('2026-11-30T22:01:00.000Z');

    clock.set('2026-11-30T22:01:00Z');
    // Due, but outside the window: it waits for Tuesday 09:00 in New York.
    const [waiting] = await contactsWhen(created.id, ([c]) => c?.next_attempt_at !== retry!.next_attempt_at);
    expect(waiting).toMatchObject({
      state: 'pending',
      attempts: 1,
      next_attempt_at: '2026-12-01T14:00:00.000Z',
    });
    expect(await client.calls(created.id)).toHaveLength(1);

    clock.set('2026-12-01T14:00:00Z');
    const done = await client.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 1, no_answer: 1, pending: 0 });
    expect(await client.calls(created.id)).toHaveLength(2);
  });

  it('a PATCH of the window judges waiting retries again: an earlier opening dials them, a later one holds them; a backoff stays', async () => {
    clock.set('2026-11-30T21:59:00Z'); // Monday 16:59 in New York: inside, for one more minute
    const retrying = (interval_seconds: number) =>
      client.create(
        settings({
          contacts: [{ phone: '+12125550001' }], // the simulated carrier: nobody answers
          calling_window: OFFICE_HOURS,
          retry_config: { on_statuses: ['no_answer'], max_retries: 1, interval_seconds },
        }),
      );
    // earlier, later and sentinel wait for Tuesday 09:00 in New York (their retry fell after 17:00);
    // backoff waits for its retry at 17:59, inside no window of its own yet.
    const [earlier, later, sentinel, backoff] = await Promise.all([
      retrying(120),
      retrying(120),
      retrying(120),
      retrying(3600),
    ]);
    const ids = [earlier!.id, later!.id, sentinel!.id, backoff!.id];
    for (const id of ids) await contactsWhen(id, ([c]) => c?.attempts === 1 && c.state === 'pending');
    clock.set('2026-11-30T22:01:00Z');
    for (const id of ids.slice(0, 3))
      await contactsWhen(id, ([c]) => c?.next_attempt_at === '2026-12-01T14:00:00.000Z');
    const patch = (id: string, calling_window: unknown) =>
      api(t.url, 'PATCH', `/v1/campaigns/${id}`, { key: acme.key, body: { calling_window } });

    // No window at all: the backoff still holds the retry until 17:59 (it is judged in the PATCH's
    // own transaction, so the answer is already the truth).
    expect((await patch(backoff!.id, null)).status).toBe(200);
    const [held] = await client.contacts(backoff!.id);
    expect(held).toMatchObject({
      state: 'pending',
      attempts: 1,
      next_attempt_at: '2026-11-30T22:59:00.000Z',
    });

    clock.set('2026-12-01T11:00:00Z'); // Tuesday 06:00 in New York
    expect((await patch(earlier!.id, { ...OFFICE_HOURS, start: '07:00' })).status).toBe(200);
    expect((await patch(later!.id, { ...OFFICE_HOURS, start: '11:00' })).status).toBe(200);
    // Judged again by the next claim: each now waits for its new window's opening.
    await contactsWhen(earlier!.id, ([c]) => c?.next_attempt_at === '2026-12-01T12:00:00.000Z');
    await contactsWhen(later!.id, ([c]) => c?.next_attempt_at === '2026-12-01T16:00:00.000Z');
    expect((await client.calls(earlier!.id)).length + (await client.calls(later!.id)).length).toBe(2);

    clock.set('2026-12-01T12:00:00Z'); // 07:00: the earlier window opens, two hours before the old one
    await client.waitFor(earlier!.id, (c) => c.status === 'completed');
    expect(await client.calls(earlier!.id)).toHaveLength(2);

    clock.set('2026-12-01T14:00:00Z'); // 09:00: the old opening; the sentinel (unchanged) is dialed
    await client.waitFor(sentinel!.id, (c) => c.status === 'completed');
    const [waiting] = await client.contacts(later!.id);
    expect(waiting).toMatchObject({
      state: 'pending',
      attempts: 1,
      next_attempt_at: '2026-12-01T16:00:00.000Z',
    });
    expect(await client.calls(later!.id)).toHaveLength(1);

    clock.set('2026-12-01T16:00:00Z'); // 11:00: the later window opens
    await client.waitFor(later!.id, (c) => c.status === 'completed');
    expect(await client.calls(later!.id)).toHaveLength(2);
    await client.waitFor(backoff!.id, (c) => c.status === 'completed');
  });

  it('refuses bad windows with a 422 naming the field, and creates nothing', async () => {
    const before = await client.send<{ total: number }>('GET', '/v1/campaigns');
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ ...OFFICE_HOURS, timezone: 'Mars/Olympus_Mons' }, ['body', 'calling_window', 'timezone']],
      [{ ...OFFICE_HOURS, fallback_timezone: 'EST5EDT6' }, ['body', 'calling_window', 'fallback_timezone']],
      [{ ...OFFICE_HOURS, start: '17:00', end: '09:00' }, ['body', 'calling_window', 'end']],
      [{ ...OFFICE_HOURS, start: '9am' }, ['body', 'calling_window', 'start']],
      [{ ...OFFICE_HOURS, days: ['mon', 'tuseday'] }, ['body', 'calling_window', 'days', 1]],
      [{ ...OFFICE_HOURS, days: [] }, ['body', 'calling_window', 'days']],
    ];
    for (const [window, loc] of cases) {
      const res = await client.send(
        'POST',
        '/v1/campaigns',
        settings({ contacts: [{ phone: '+12125552100' }], calling_window: window }),
      );
      expect(res.status, res.text).toBe(422);
      expect(res.body.detail, JSON.stringify(window)).toEqual([expect.objectContaining({ loc })]);
    }
    const after = await client.send<{ total: number }>('GET', '/v1/campaigns');
    expect(after.body.data.total).toBe(before.body.data.total);
  });

  it('takes and shows the window over GraphQL and tRPC', async () => {
    clock.set('2026-12-05T12:00:00Z'); // a Saturday: nobody is dialed
    const gql = await api<{ data?: { createCampaign: Record<string, unknown> }; errors?: unknown[] }>(
      t.url,
      'POST',
      '/graphql',
      {
        key: acme.key,
        body: {
          query: `mutation ($input: CreateCampaignInput!) { createCampaign(input: $input) {
            id callingWindow { days start end timezone fallbackTimezone } } }`,
          variables: {
            input: {
              name: 'Over GraphQL',
              agentId,
              phoneNumber: FROM,
              contacts: [{ phone: '+12125552200' }],
              callingWindow: {
                days: ['MON', 'FRI'],
                start: '10:00',
                end: '24:00',
                fallbackTimezone: 'Europe/Paris',
              },
            },
          },
        },
      },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data?.createCampaign.callingWindow).toEqual({
      days: ['MON', 'FRI'],
      start: '10:00',
      end: '24:00',
      timezone: 'recipient',
      fallbackTimezone: 'Europe/Paris',
    });
    const id = gql.body.data?.createCampaign.id as string;
    const [waiting] = await contactsWhen(id, ([c]) => Boolean(c?.next_attempt_at));
    expect(waiting!.next_attempt_at).toBe('2026-12-07T15:00:00.000Z'); // Monday 10:00 in New York

    const trpc = createVoiceClient({ url: t.url, apiKey: acme.key });
    const got: Campaign = await trpc.campaigns.get.query({ id });
    expect(got.calling_window).toMatchObject({ days: ['mon', 'fri'], end: '24:00' });
    const bad = await failure(
      trpc.campaigns.create.mutate({
        ...settings({ contacts: [{ phone: '+12125552201' }] }),
        calling_window: { ...OFFICE_HOURS, timezone: 'Nowhere/Town' },
      } as never),
    );
    expect(bad.data?.issues).toEqual([
      expect.objectContaining({ loc: ['input', 'calling_window', 'timezone'] }),
    ]);
    await client.send('POST', `/v1/campaigns/${id}/cancel`);
  });
});
