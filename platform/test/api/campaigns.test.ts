import { randomUUID } from 'node:crypto';
import type { Call, Campaign, EventOf } from '@voice/shared';
import { CALL, callRpc, EVENTS, eventFilter, type Subscription } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/accounts';
import type { TestPlatform } from '../support/harness';
import {
  type CampaignSuite,
  campaignSuite,
  completingNumbers,
  countsSnapshot,
  createAgent,
  dialsPerNumber,
  FROM,
  maxOverlap,
  watchCounts,
} from './campaigns-support';

/** A completed call takes ~0.2-0.4 s of wall time, an unanswered one ~0.12 s. */
const SIM_TIME_SCALE = 0.004;

describe.each(infraModes())('campaigns: dialing (%s)', (mode) => {
  const suite = campaignSuite(mode, SIM_TIME_SCALE);
  const { settings, contactsOf } = suite;
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;
  let api: CampaignSuite['api'];
  let sql: postgres.Sql;
  const progress: EventOf<{ campaign: Campaign; sequence: number }>[] = [];
  let subscription: Subscription;
  beforeAll(() => {
    ({ t, acme, agentId, api, sql } = suite);
    subscription = t.platform.infrastructure.bus.subscribe(
      eventFilter(EVENTS.campaignProgress, acme.accountId),
      (msg) => {
        progress.push(msg.data as (typeof progress)[number]);
      },
    );
  });
  afterAll(async () => subscription?.unsubscribe());

  it('dials each valid number once, never more than max_concurrent_calls at a time, skipping bad contacts', async () => {
    const numbers = completingNumbers(12);
    const contacts = [
      ...numbers.map((phone, i) => ({ phone, name: `Contact ${i}`, crm_id: i, vip: i % 2 === 0 })),
      { name: 'No number' },
      { phone: '   ', name: 'Blank' },
      { phone: '4155551234', name: 'No plus' },
      { phone: 14155551234, name: 'A number, not a string' },
      { phone: numbers[3], name: 'Same as contact 3' },
    ];
    const created = await api.create(settings({ contacts, max_concurrent_calls: 3 }));
    expect(created).toMatchObject({
      status: 'running',
      phone_column: 'phone',
      max_concurrent_calls: 3,
      retry_config: null,
      start_at: null,
      finished_at: null,
    });
    expect(created.counts).toMatchObject({ total: 17, skipped: 5 });
    expect(created.started_at).toBeTruthy();

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toEqual({
      total: 17,
      pending: 0,
      in_progress: 0,
      completed: 12,
      no_answer: 0,
      failed: 0,
      voicemail: 0,
      busy: 0,
      skipped: 5,
      cancelled: 0,
    });
    expect(Date.parse(done.finished_at!)).toBeGreaterThanOrEqual(Date.parse(done.started_at!));

    const calls = await api.calls(created.id);
    expect(calls).toHaveLength(12);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    const overlap = maxOverlap(calls);
    expect(overlap).toBeLessThanOrEqual(3);
    expect(overlap, 'the cap was used, not just respected').toBeGreaterThan(1);
    for (const call of calls) {
      const i = numbers.indexOf(call.phone_number);
      expect(call.campaign_id).toBe(created.id);
      expect(call.metadata).toEqual({
        campaign_id: created.id,
        contact: { name: `Contact ${i}`, crm_id: i, vip: i % 2 === 0 },
      });
    }

    const contactsNow = await api.contacts(created.id);
    expect(contactsNow.map((c) => c.position)).toEqual([...Array(17).keys()]);
    expect(contactsNow.slice(12).map((c) => [c.state, c.skip_reason, c.phone_number])).toEqual([
      ['skipped', 'missing_phone', null],
      ['skipped', 'missing_phone', null],
      ['skipped', 'invalid_phone', '4155551234'],
      ['skipped', 'invalid_phone', '14155551234'],
      ['skipped', 'duplicate', numbers[3]],
    ]);
    const byId = new Map(calls.map((c) => [c.id, c]));
    for (const contact of contactsNow.slice(0, 12)) {
      expect(contact).toMatchObject({ state: 'completed', attempts: 1, skip_reason: null });
      expect(contact.call_ids).toHaveLength(1);
      expect(byId.get(contact.call_ids[0]!)?.phone_number).toBe(contact.phone_number);
    }
    expect((await api.contacts(created.id, 'skipped')).map((c) => c.position)).toEqual([12, 13, 14, 15, 16]);

    // Progress reached live subscribers on every change, in sequence, ending with the final record.
    const mine = progress.filter((e) => e.data.campaign.id === created.id);
    const sequences = mine.map((e) => e.data.sequence).sort((a, b) => a - b);
    expect(sequences.length).toBeGreaterThanOrEqual(12);
    expect(new Set(sequences).size).toBe(sequences.length);
    const last = mine.find((e) => e.data.sequence === sequences.at(-1));
    expect(last?.data.campaign).toEqual(done);
    expect(last?.type).toBe(eventFilter(EVENTS.campaignProgress, acme.accountId, created.id));
  });

  it.each([
    ['lost (a move would take a state below zero: recounted at once)', 'lost'],
    ['inflated (moves never reach idle: the idle check completes it)', 'inflated'],
  ] as const)('ends with exact counts when the stored counts were %s', async (_, damage) => {
    const numbers = completingNumbers(4, '+1415556');
    const created = await api.create(settings({ contacts: contactsOf(numbers), max_concurrent_calls: 1 }));
    const counts = damage === 'lost' ? sql`'{}'::jsonb` : sql`counts || '{"pending": 1000}'::jsonb`;
    await sql`UPDATE campaign.campaigns SET counts = ${counts} WHERE id = ${created.id}`;
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toEqual({
      total: 4,
      pending: 0,
      in_progress: 0,
      completed: 4,
      no_answer: 0,
      failed: 0,
      voicemail: 0,
      busy: 0,
      skipped: 0,
      cancelled: 0,
    });
  });

  it('keeps the stored counts equal to a recount of the contacts at every moment of a run (every outcome, retries)', async () => {
    // Four of each outcome (the last four digits pick it), eight completing, two skipped.
    const outcomes = ['0001', '0002', '0003', '0004'].flatMap((tail, k) =>
      Array.from({ length: 4 }, (_, i) => `+1415${7_000 + 10 * k + i}${tail}`),
    );
    const numbers = [...outcomes, ...completingNumbers(8, '+1415557')];
    const created = await api.create(
      settings({
        contacts: [...contactsOf(numbers), { name: 'No phone' }, { phone: numbers[0] }],
        max_concurrent_calls: 4,
        retry_config: { on_statuses: ['no_answer', 'busy', 'failed'], max_retries: 1, interval_seconds: 1 },
      }),
    );
    const watch = watchCounts(sql, created.id);
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    const seen = await watch.stop();
    expect(seen.mismatches).toEqual([]);
    expect(seen.inFlight, `${seen.taken} snapshots`).toBeGreaterThan(0);
    expect(done.counts).toEqual({
      total: 26,
      pending: 0,
      in_progress: 0,
      completed: 8,
      no_answer: 4,
      failed: 4,
      voicemail: 4,
      busy: 4,
      skipped: 2,
      cancelled: 0,
    });
    const { stored, recounted } = await countsSnapshot(sql, created.id);
    expect(stored).toEqual(recounted);
    expect(stored).toEqual(done.counts);
  });

  it('retries the listed outcomes after interval_seconds, up to max_retries, with a custom phone_column', async () => {
    const numbers = ['+14155550001', '+14155550002', '+14155550003', '+14155550004', '+14155552100'];
    const created = await api.create(
      settings({
        phone_column: 'mobile',
        contacts: numbers.map((mobile) => ({ mobile })),
        max_concurrent_calls: 5,
        retry_config: { on_statuses: ['no_answer', 'busy'], max_retries: 2, interval_seconds: 1 },
      }),
    );
    expect(created.retry_config).toEqual({
      on_statuses: ['no_answer', 'busy'],
      max_retries: 2,
      interval_seconds: 1,
    });
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ completed: 1, no_answer: 1, busy: 1, voicemail: 1, failed: 1 });

    const calls = await api.calls(created.id);
    expect(dialsPerNumber(calls)).toEqual(
      new Map([
        ['+14155550001', 3],
        ['+14155550002', 3],
        ['+14155550003', 1],
        ['+14155550004', 1],
        ['+14155552100', 1],
      ]),
    );
    const contacts = await api.contacts(created.id);
    expect(contacts.map((c) => [c.state, c.attempts, c.call_ids.length])).toEqual([
      ['no_answer', 3, 3],
      ['busy', 3, 3],
      ['voicemail', 1, 1],
      ['failed', 1, 1],
      ['completed', 1, 1],
    ]);
    // Each retry waited interval_seconds after the attempt before it ended.
    for (const contact of contacts.slice(0, 2)) {
      const attempts = contact.call_ids.map((id) => calls.find((c) => c.id === id)!);
      for (let i = 1; i < attempts.length; i++) {
        const before = attempts[i - 1]!;
        const wallEnd = Date.parse(before.ended_at!);
        expect(Date.parse(attempts[i]!.started_at!) - wallEnd).toBeGreaterThanOrEqual(1000);
      }
    }
  });

  it('fails the contacts of a deleted agent without dialing, and still completes', async () => {
    const doomed = await createAgent(t.url, acme.key, 'Doomed');
    const created = await api.create(
      settings({
        agent_id: doomed,
        contacts: contactsOf(['+14155559200', '+14155559201']),
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    expect((await api.send('DELETE', `/v1/agents/${doomed}`)).status).toBe(204);
    // Due now, once the agent is certainly gone (a start_at half a second ahead could come first
    // on a loaded machine): the dispatcher starts scheduled campaigns whose start_at has come.
    await sql`UPDATE campaign.campaigns SET start_at = now() WHERE id = ${created.id}`;
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ failed: 2, total: 2 });
    const contacts = await api.contacts(created.id);
    for (const contact of contacts) {
      expect(contact.failure_reason).toMatch(/^AGENT_NOT_FOUND/);
      // Refused placements: no call was placed, so no attempt and no call id.
      expect(contact).toMatchObject({ attempts: 0, call_ids: [] });
    }
    expect(await api.calls(created.id)).toHaveLength(0);
  });

  it('re-sends a placement never confirmed (its replica died after claiming) with the same call id: one dial each', async () => {
    const created = await api.create(
      settings({
        contacts: contactsOf(['+14155559400', '+14155559401']),
        max_concurrent_calls: 2,
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    const [lost, placed] = [randomUUID(), randomUUID()];
    // What a replica killed after its claim committed leaves behind: both contacts in progress with
    // their call ids chosen; one call was never placed, the other was but never confirmed.
    await sql.begin(async (tx) => {
      await tx`UPDATE campaign.campaigns SET status = 'running', started_at = now() WHERE id = ${created.id}`;
      for (const [position, id] of [lost, placed].entries()) {
        await tx`UPDATE campaign.contacts SET state = 'in_progress', attempts = 1, current_call_id = ${id},
          call_ids = ARRAY[${id}]::uuid[], dispatched_at = now() - interval '1 hour'
          WHERE campaign_id = ${created.id} AND position = ${position}`;
      }
    });
    const place = () =>
      callRpc(
        t.platform.infrastructure.bus,
        CALL.create,
        {
          id: placed,
          campaign_id: created.id,
          agent_id: agentId,
          source_number: FROM,
          phone_number: '+14155559401',
          metadata: { campaign_id: created.id, contact: { name: 'Contact 1' } },
        },
        { requestId: randomUUID(), accountId: acme.accountId },
      );
    // Placing with a chosen id is idempotent, concurrent repeats included.
    const [a, b] = await Promise.all([place(), place()]);
    expect([a.id, b.id]).toEqual([placed, placed]);

    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ completed: 2, total: 2 });
    const calls = await api.calls(created.id);
    expect(calls.map((c) => c.id).sort()).toEqual([lost, placed].sort());
    const contacts = await api.contacts(created.id);
    expect(contacts.map((c) => [c.attempts, c.call_ids])).toEqual([
      [1, [lost]],
      [1, [placed]],
    ]);
  });

  it('answers a re-sent placement with the call it placed even after its agent was deleted', async () => {
    const doomed = await createAgent(t.url, acme.key, 'Doomed');
    const place = (id: string) =>
      callRpc(
        t.platform.infrastructure.bus,
        CALL.create,
        { id, agent_id: doomed, source_number: FROM, phone_number: '+14155559500' },
        { requestId: randomUUID(), accountId: acme.accountId },
      );
    const id = randomUUID();
    const first = await place(id);
    expect((await api.send('DELETE', `/v1/agents/${doomed}`)).status).toBe(204);
    const again = await place(id);
    expect(again.id).toBe(id);
    expect(again.created_at).toBe(first.created_at);
    // A placement that placed nothing yet is refused: the agent is gone.
    await expect(place(randomUUID())).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
  });

  it('dials a call whose placement was stored but never answered, once it is re-sent', async () => {
    const place = (id: string, phone: string) =>
      callRpc(
        t.platform.infrastructure.bus,
        CALL.create,
        { id, agent_id: agentId, source_number: FROM, phone_number: phone },
        { requestId: randomUUID(), accountId: acme.accountId },
      );
    const model = await place(randomUUID(), '+14155559610');
    // What a placement leaves when the database goes away after its insert committed but before
    // it answered: the call and its first transition stored, owned by the live instance, never
    // queued for dialing (the placement failed, so nothing pushed it).
    const lost = randomUUID();
    await sql.begin(async (tx) => {
      await tx`
        INSERT INTO call.calls (id, account_id, agent_id, agent_snapshot, phone_number, source_number,
          status, started_at, prompt_version_id, prompt_hash, owner)
        SELECT ${lost}, account_id, agent_id, agent_snapshot, '+14155559611', source_number,
          'initializing', date_trunc('milliseconds', now()), prompt_version_id, prompt_hash,
          (SELECT id FROM call.instances ORDER BY lease_until DESC LIMIT 1)
        FROM call.calls WHERE id = ${model.id}`;
      await tx`
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        VALUES (${lost}, 1, 'initializing', now())`;
    });
    // The campaign (or any caller of CALL.create with an id) sends the placement again.
    const again = await place(lost, '+14155559611');
    expect(again).toMatchObject({ id: lost, status: 'initializing' });
    await expect
      .poll(async () => (await api.send<Call>('GET', `/v1/calls/${lost}`)).body.data.status, {
        timeout: 60_000,
        interval: 50,
      })
      .toBe('completed');
    const transitions = await sql<{ status: string }[]>`
      SELECT status FROM call.call_transitions WHERE call_id = ${lost} ORDER BY sequence`;
    // Dialed once: one ringing, one answer.
    expect(transitions.map((r) => r.status)).toEqual(['initializing', 'ringing', 'in_progress', 'completed']);
  });

  it('lets no REST client choose a call id', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    const res = await api.send<Call>('POST', '/v1/call', {
      id,
      campaign_id: id,
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155559300',
    });
    expect(res.status).toBe(201);
    expect(res.body.data.id).not.toBe(id);
    expect(res.body.data.campaign_id).toBeNull();
  });
});
