import { randomUUID } from 'node:crypto';
import type { Campaign, PageOf } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { contactChunks, createCampaign } from '../../../gateway/src/clients/campaigns';
import { GatewayClient } from '../../../gateway/src/clients/gateway-client';
import { createKey, type TestAccount } from '../support/accounts';
import type { TestPlatform } from '../support/harness';
import {
  type CampaignSuite,
  campaignApi,
  campaignSuite,
  completingNumbers,
  createAgent,
  dialsPerNumber,
  FROM,
  maxOverlap,
  pollingAccount,
  type Res,
} from './campaigns-support';

type Issues = { loc: (string | number)[]; msg: string; type: string }[];

/** A completed call takes ~0.2-0.4 s of wall time, an unanswered one ~0.12 s. */
const SIM_TIME_SCALE = 0.004;

describe.each(infraModes())('campaigns: validation, access, idempotency, size (%s)', (mode) => {
  const suite = campaignSuite(mode, SIM_TIME_SCALE);
  const { settings, contactsOf } = suite;
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  let api: CampaignSuite['api'];
  beforeAll(() => {
    ({ t, acme, other, api } = suite);
  });

  it('validates the body in one 422', async () => {
    const res = await api.send('POST', '/v1/campaigns', {
      name: '',
      agent_id: 'nope',
      phone_number: '0123',
      contacts: [],
      max_concurrent_calls: 51,
      retry_config: { max_retries: 6, interval_seconds: 0, on_statuses: ['completed'] },
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining([
        'body.name',
        'body.agent_id',
        'body.phone_number',
        'body.contacts',
        'body.max_concurrent_calls',
        'body.retry_config.max_retries',
        'body.retry_config.interval_seconds',
        'body.retry_config.on_statuses.0',
      ]),
    );
    const tooMany = await api.send('POST', '/v1/campaigns', {
      ...settings(),
      contacts: Array.from({ length: 100_001 }, () => ({ phone: FROM })),
    });
    expect(tooMany.status).toBe(422);
    expect((tooMany.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(['body.contacts']);
    // A contact's keys become its calls' metadata.contact, so a row is bounded like call metadata.
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field_${i}`, 'y'.repeat(1_000)]));
    const tooWide = await api.send('POST', '/v1/campaigns', {
      ...settings(),
      contacts: [{ phone: FROM }, { phone: '+14155550199', ...wide }],
    });
    expect(tooWide.status).toBe(422);
    expect((tooWide.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(['body.contacts.1']);
  });

  it('checks scopes and tenancy: another account’s campaign is 404, another account’s agent is refused', async () => {
    const created = await api.create(
      settings({
        contacts: contactsOf(['+14155559000']),
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    );
    const readOnly = campaignApi(t.url, await createKey(t, acme.accountId, ['campaigns:read']));
    expect((await readOnly.send('GET', '/v1/campaigns')).status).toBe(200);
    expect(
      (await readOnly.send('POST', '/v1/campaigns', settings({ contacts: [{ phone: FROM }] }))).status,
    ).toBe(403);
    const callsOnly = campaignApi(t.url, await createKey(t, acme.accountId, ['calls:read', 'calls:write']));
    expect((await callsOnly.send('GET', '/v1/campaigns')).status).toBe(403);

    const foreign = campaignApi(t.url, other.key);
    for (const [method, path] of [
      ['GET', `/v1/campaigns/${created.id}`],
      ['GET', `/v1/campaigns/${created.id}/contacts`],
      ['POST', `/v1/campaigns/${created.id}/pause`],
      ['POST', `/v1/campaigns/${created.id}/resume`],
      ['POST', `/v1/campaigns/${created.id}/cancel`],
    ] as const) {
      const res = await foreign.send(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail).toBe('Campaign not found');
    }
    expect((await foreign.send<PageOf<Campaign>>('GET', '/v1/campaigns')).body.data.total).toBe(0);
    expect((await api.get(created.id)).status).toBe('scheduled');

    const stolen = await foreign.send(
      'POST',
      '/v1/campaigns',
      settings({ contacts: [{ phone: '+14155559001' }] }),
    );
    expect(stolen.status).toBe(404);
    expect(stolen.body.detail).toBe('Agent not found');
    expect((await foreign.send<PageOf<Campaign>>('GET', '/v1/campaigns')).body.data.total).toBe(0);
    expect((await api.send('GET', '/v1/campaigns/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('lists newest first with a status filter; a repeated Idempotency-Key creates and dials nothing again', async () => {
    const body = settings({ name: 'Idempotent', contacts: contactsOf(['+14155559100', '+14155559101']) });
    const headers = { 'idempotency-key': `campaign-${mode}-${Date.now()}` };
    const first = await api.send('POST', '/v1/campaigns', body, headers);
    const second = await api.send('POST', '/v1/campaigns', body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    const reused = await api.send('POST', '/v1/campaigns', { ...body, name: 'Another' }, headers);
    expect(reused.status).toBe(409);

    await api.waitFor(first.body.data.id, (c) => c.status === 'completed');
    const named = (
      await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?page_size=100')
    ).body.data.items.filter((c) => c.name === 'Idempotent');
    expect(named.map((c) => c.id)).toEqual([first.body.data.id]);
    expect(await api.calls(first.body.data.id)).toHaveLength(2);

    const newest = await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?page=1&page_size=1');
    expect(newest.body.data).toMatchObject({ page: 1, page_size: 1, has_more: true });
    expect(newest.body.data.items.map((c) => c.id)).toEqual([first.body.data.id]);
    const older = await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?page=2&page_size=1');
    expect(older.body.data.total).toBe(newest.body.data.total);
    expect(Date.parse(older.body.data.items[0]!.created_at)).toBeLessThanOrEqual(
      Date.parse(first.body.data.created_at),
    );
    const completed = await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?status=completed&page_size=100');
    expect(completed.body.data.items.length).toBeGreaterThan(0);
    expect(completed.body.data.items.every((c) => c.status === 'completed')).toBe(true);
    expect((await api.send('GET', '/v1/campaigns?status=draft')).status).toBe(422);
  });

  it('walks the campaign list by cursor: every campaign once while newer ones are created, with or without a status', async () => {
    const walker = await pollingAccount(t, `Cursor walk (${mode})`);
    const client = campaignApi(t.url, walker.key);
    const agentId = await createAgent(t.url, walker.key);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const create = (name: string) =>
      client.create({
        name,
        agent_id: agentId,
        phone_number: FROM,
        contacts: [{ phone: FROM }],
        start_at: later,
      });
    const first = await Promise.all(Array.from({ length: 7 }, (_, i) => create(`Walk ${i}`)));
    await client.send('POST', `/v1/campaigns/${first[2]!.id}/cancel`);
    const listed = async (query: string) =>
      (await client.send<PageOf<Campaign>>('GET', `/v1/campaigns?page_size=100${query}`)).body.data.items.map(
        (c) => c.id,
      );

    for (const [query, size] of [
      ['', 2],
      ['&status=scheduled', 3],
    ] as const) {
      const before = await listed(query);
      // Campaign 2 is cancelled; the first walk's creations are scheduled too.
      expect(before.length).toBeGreaterThanOrEqual(6);
      expect(before.includes(first[2]!.id)).toBe(!query);
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const res: Res<PageOf<Campaign>> = await client.send<PageOf<Campaign>>(
          'GET',
          `/v1/campaigns?page_size=${size}${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status, res.text).toBe(200);
        page++;
        expect(res.body.data).toMatchObject({ page, page_size: size, total_exact: true });
        seen.push(...res.body.data.items.map((c) => c.id));
        cursor = res.body.data.next_cursor;
        expect(res.body.data.has_more).toBe(cursor !== null);
        // Newest first: a campaign created now sorts before the walk's position, never into it.
        await create(`Created during the walk, page ${page}`);
      } while (cursor);
      expect(seen).toEqual(before);
    }
  });

  it('walks a campaign’s contacts by cursor in position order, totals from its counts; a bad cursor is a 422 on it', async () => {
    const contacts = Array.from({ length: 250 }, (_, i) =>
      i % 10 === 0 ? { name: `No phone ${i}` } : { phone: `+1415${String(4_000_000 + i)}`, name: `C${i}` },
    );
    const created = await api.create(
      settings({ contacts, start_at: new Date(Date.now() + 3_600_000).toISOString() }),
    );
    const walk = async (query: string) => {
      const positions: number[] = [];
      let cursor: string | null = null;
      do {
        const res: Res<PageOf<{ position: number }>> = await api.send<PageOf<{ position: number }>>(
          'GET',
          `/v1/campaigns/${created.id}/contacts?page_size=100${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.total_exact).toBe(true);
        expect(res.body.data.total).toBe(query ? 25 : 250);
        positions.push(...res.body.data.items.map((c) => c.position));
        cursor = res.body.data.next_cursor;
      } while (cursor);
      return positions;
    };
    expect(await walk('')).toEqual([...Array(250).keys()]);
    expect(await walk('&status=skipped')).toEqual(Array.from({ length: 25 }, (_, i) => i * 10));

    const listCursor = (await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?page_size=1')).body.data
      .next_cursor!;
    const edited = (key: unknown[]) => Buffer.from(JSON.stringify([2, ...key])).toString('base64url');
    for (const [path, cursor] of [
      ['/v1/campaigns', 'not-a-cursor'],
      ['/v1/campaigns', edited(['2026-11-26 18:30:19.123+00', 'not-a-uuid'])],
      ['/v1/campaigns', edited(['2026-02-30 00:00:00+00', randomUUID()])],
      [`/v1/campaigns/${created.id}/contacts`, listCursor],
      [`/v1/campaigns/${created.id}/contacts`, edited([1.5])],
      [`/v1/campaigns/${created.id}/contacts`, 'x'.repeat(513)],
    ] as const) {
      const res = await api.send('GET', `${path}?cursor=${cursor}`);
      expect(res.status, `${path} ${cursor}: ${res.text}`).toBe(422);
      expect((res.body.detail as Issues).map((d) => d.loc)).toEqual([['query', 'cursor']]);
    }
  });

  it('takes 100,000 contacts in one request: 201 preparing at once, then scheduled with every duplicate skipped', async () => {
    const contacts: Record<string, unknown>[] = Array.from({ length: 100_000 }, (_, i) => ({
      phone: `+1415${String(1_000_000 + i).padStart(7, '0')}`,
      first_name: `Name${i}`,
      account: i,
    }));
    contacts[10] = { phone: contacts[9]!.phone, first_name: 'Duplicate' };
    // First seen 19 preparation steps earlier.
    contacts[99_998] = { phone: contacts[3]!.phone, first_name: 'Duplicate, far down the list' };
    contacts[99_999] = { first_name: 'No phone' };
    const created = await api.create(
      settings({
        contacts,
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
        max_concurrent_calls: 50,
      }),
    );
    // Its start checked the first contacts only; the campaign service's loop checks the rest.
    expect(created.status).toBe('preparing');
    expect(created.counts).toMatchObject({ total: 100_000, skipped: 2 });
    const prepared = await api.waitFor(created.id, (c) => c.status !== 'preparing', 60_000);
    expect(prepared.status).toBe('scheduled');
    expect(prepared.counts).toMatchObject({ total: 100_000, pending: 99_997, skipped: 3 });
    const skipped = await api.contacts(created.id, 'skipped');
    expect(skipped.map((c) => [c.position, c.skip_reason])).toEqual([
      [10, 'duplicate'],
      [99_998, 'duplicate'],
      [99_999, 'missing_phone'],
    ]);
    const last = await api.send<PageOf<{ position: number; skip_reason: string | null }>>(
      'GET',
      `/v1/campaigns/${created.id}/contacts?page=1000&page_size=100`,
    );
    expect(last.body.data).toMatchObject({ total: 100_000, has_more: false });
    expect(last.body.data.items.at(-1)).toMatchObject({ position: 99_999, skip_reason: 'missing_phone' });
    const cancelled = await api.send('POST', `/v1/campaigns/${created.id}/cancel`);
    expect(cancelled.body.data.counts).toMatchObject({ total: 100_000, cancelled: 99_997, skipped: 3 });
  });

  it('discards the draft of a create that fails midway and answers the error: nothing is left behind', async () => {
    // Past the REST validation (createCampaign is called directly), a contact the campaign service
    // refuses makes one chunk fail while others were stored.
    const name = `Fails midway (${mode})`;
    const contacts = [
      ...Array.from({ length: 60_000 }, (_, i) => ({ phone: `+1415${3_000_000 + i}` })),
      { phone: '+14155550199', note: 'x'.repeat(20_000) },
    ];
    expect(contactChunks(contacts).length).toBeGreaterThan(4);
    const failed = await createCampaign(
      new GatewayClient(t.platform.infrastructure.bus),
      {
        name,
        agent_id: suite.agentId,
        phone_number: FROM,
        phone_column: 'phone',
        max_concurrent_calls: 1,
        contacts,
      },
      { requestId: randomUUID(), accountId: acme.accountId },
    ).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await suite.sql`SELECT id FROM campaign.campaigns WHERE name = ${name}`).toEqual([]);
  });

  it('runs a list longer than one preparation step once prepared: each number dialed once, under the cap, one campaign per Idempotency-Key', async () => {
    const numbers = completingNumbers(3, '+1415556');
    // 6,001 contacts over three numbers: all but three are duplicates, most found by the loop.
    const body = settings({
      name: 'Prepared then run',
      max_concurrent_calls: 2,
      contacts: Array.from({ length: 6_001 }, (_, i) => ({ phone: numbers[i % 3]!, name: `Contact ${i}` })),
    });
    const headers = { 'idempotency-key': `prepared-${mode}-${Date.now()}` };
    const first = await api.send('POST', '/v1/campaigns', body, headers);
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toMatchObject({ status: 'preparing', counts: { total: 6_001 } });
    const again = await api.send('POST', '/v1/campaigns', body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);

    const done = await api.waitFor(first.body.data.id, (c) => c.status === 'completed', 60_000);
    expect(done.counts).toMatchObject({ total: 6_001, completed: 3, skipped: 5_998, pending: 0 });
    const calls = await api.calls(done.id);
    expect([...dialsPerNumber(calls).values()]).toEqual([1, 1, 1]);
    expect(maxOverlap(calls)).toBeLessThanOrEqual(2);
    const named = await api.send<PageOf<Campaign>>('GET', '/v1/campaigns?page_size=100');
    expect(named.body.data.items.filter((c) => c.name === 'Prepared then run')).toHaveLength(1);
  });
});
