import type { Call, PageOf } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { callIds, cursorOf, cursorParts, seedHistory } from './calls-paging-support';
import { failure } from './trpc-support';

/** A page of calls as any surface answers it, in one shape. */
interface CallsPage {
  ids: string[];
  page: number;
  total: number;
  totalExact: boolean;
  totalPages: number;
  hasMore: boolean;
  next: string | null;
}
interface CallsQuery {
  pageSize: number;
  cursor?: string | undefined;
  page?: number;
  status?: string;
}
/** The same page as GraphQL names its fields. */
type GraphQLPage = Omit<CallsPage, 'ids' | 'next'> & { items: { id: string }[]; nextCursor: string | null };
type Surface = 'REST' | 'GraphQL' | 'tRPC';
const SURFACES: Surface[] = ['REST', 'GraphQL', 'tRPC'];

const CALLS = `query ($page: Int, $pageSize: Int, $cursor: String, $status: CallStatus) {
  calls(page: $page, pageSize: $pageSize, cursor: $cursor, status: $status) {
    items { id } page total totalExact totalPages hasMore nextCursor
  }
}`;

const fromWrapper = (page: PageOf<{ id: string }>): CallsPage => ({
  ids: page.items.map((item) => item.id),
  page: page.page,
  total: page.total,
  totalExact: page.total_exact,
  totalPages: page.total_pages,
  hasMore: page.has_more,
  next: page.next_cursor,
});

describe.each(infraModes())('call list paging (%s)', (mode) => {
  let t: TestPlatform;
  /** Places calls while lists are walked. */
  let busy: TestAccount;
  /** Holds still: pages by number and by cursor must agree. */
  let quiet: TestAccount;
  let agentId: string;

  /** The REST answer to GET /v1/calls with this query string, whatever its status. */
  const listRest = (key: string, query: string) =>
    api<Envelope<PageOf<Call>> & ErrorEnvelope>(t.url, 'GET', `/v1/calls?${query}`, { key });

  const restQuery = (q: CallsQuery) =>
    new URLSearchParams({
      page_size: String(q.pageSize),
      ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
      ...(q.page === undefined ? {} : { page: String(q.page) }),
      ...(q.status === undefined ? {} : { status: q.status }),
    }).toString();

  const graphql = (key: string, q: CallsQuery) =>
    api<{ data?: { calls: GraphQLPage | null } | null; errors?: { extensions?: Record<string, unknown> }[] }>(
      t.url,
      'POST',
      '/graphql',
      { key, body: { query: CALLS, variables: { ...q, status: q.status?.toUpperCase() } } },
    );

  /** One page of the account's calls over a surface. */
  async function list(surface: Surface, key: string, q: CallsQuery): Promise<CallsPage> {
    if (surface === 'REST') {
      const res = await listRest(key, restQuery(q));
      expect(res.status, res.text).toBe(200);
      return fromWrapper(res.body.data);
    }
    if (surface === 'GraphQL') {
      const res = await graphql(key, q);
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const { items, nextCursor, ...page } = res.body.data!.calls as GraphQLPage;
      return { ...page, ids: items.map((item) => item.id), next: nextCursor };
    }
    const client = createVoiceClient({ url: t.url, apiKey: key });
    return fromWrapper(
      await client.calls.list.query({
        page_size: q.pageSize,
        ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
        ...(q.page === undefined ? {} : { page: q.page }),
        ...(q.status === undefined ? {} : { status: q.status as Call['status'] }),
      }),
    );
  }

  /** Every page from the first, following next_cursor; each page's number as it says. */
  async function walk(
    surface: Surface,
    key: string,
    q: CallsQuery,
    between?: (pages: number) => Promise<void>,
  ) {
    const pages: CallsPage[] = [await list(surface, key, q)];
    while (pages.at(-1)!.next) {
      await between?.(pages.length);
      pages.push(await list(surface, key, { ...q, cursor: pages.at(-1)!.next! }));
    }
    return pages;
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002 } });
    const limits = { plan: 'enterprise', rateLimitPerMinute: 100_000 };
    [busy, quiet] = await Promise.all([
      createAccount(t, { name: 'Busy', ...limits }),
      createAccount(t, { name: 'Quiet', ...limits }),
    ]);
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: busy.key,
      body: { name: 'Riley', start_flow: 'Hi, this is Riley.', end_flow: 'Goodbye!' },
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
    // Three calls share each creation time, two in the quiet account: the list orders ties by id.
    // The times are a microsecond apart: pages end inside one millisecond.
    await seedHistory(t.databaseUrl, busy.accountId, 60, { sharing: 3, stepMicroseconds: 1 });
    await seedHistory(t.databaseUrl, quiet.accountId, 47, { sharing: 2, stepMicroseconds: 1 });
  });
  afterAll(async () => t?.stop());

  it.each(SURFACES)(
    'walks every call exactly once by cursor over %s while new calls are placed',
    async (surface) => {
      const existing = await callIds(t.databaseUrl, busy.accountId);
      let placed = 0;
      let walking = true;
      const placeWhileWalking = async () => {
        while (walking) {
          const res = await api(t.url, 'POST', '/v1/call', {
            key: busy.key,
            body: { agent_id: agentId, source_number: '+14155550100', phone_number: '+14155550123' },
          });
          expect(res.status, res.text).toBe(201);
          placed++;
        }
      };
      // Placing starts once the first page is read: every call placed lands before the walk's position
      // (newest first), so the walk must answer exactly the calls there were when it started.
      let placing: Promise<void> = Promise.resolve();
      const pages = await walk(surface, busy.key, { pageSize: 4 }, async (read) => {
        if (read === 1) placing = placeWhileWalking();
        // At least one new call between any two pages: the walk and the placing interleave.
        await vi.waitFor(() => expect(placed).toBeGreaterThanOrEqual(read), { timeout: 30_000, interval: 5 });
      }).finally(() => {
        walking = false;
      });
      await placing;
      const walked = pages.flatMap((page) => page.ids);
      expect(walked.length).toBe(new Set(walked).size);
      expect(new Set(walked)).toEqual(existing);
      expect(pages.map((page) => page.page)).toEqual(pages.map((_, i) => i + 1));
      expect(placed).toBeGreaterThanOrEqual(pages.length - 1);
      expect(pages.at(-1)!.hasMore).toBe(false);
    },
  );

  it.each(SURFACES)(
    'answers the same pages by number and by cursor over %s, filtered too',
    async (surface) => {
      for (const filter of [{}, { status: 'busy' }]) {
        const q = { pageSize: 5, ...filter };
        const byCursor = await walk(surface, quiet.key, q);
        const byNumber = await Promise.all(
          byCursor.map((_, i) => list(surface, quiet.key, { ...q, page: i + 1 })),
        );
        expect(byCursor.map(({ next: _, ...page }) => page)).toEqual(
          byNumber.map(({ next: _, ...page }) => page),
        );
        expect(byNumber.map((page) => page.next === null)).toEqual(
          byCursor.map((page) => page.next === null),
        );
        const expected = 'status' in filter ? 12 : 47;
        expect(byCursor[0]).toMatchObject({
          total: expected,
          totalExact: true,
          totalPages: Math.ceil(expected / 5),
        });
        expect(byCursor.length).toBe(Math.ceil(expected / 5));
      }
      // A short list is exact and has no cursor at all.
      const short = await list(surface, quiet.key, { pageSize: 100 });
      expect(short).toMatchObject({ total: 47, totalExact: true, totalPages: 1, hasMore: false, next: null });
    },
  );

  /** Cursors that are not this list's: garbage, edited, too long, another list's (the admin accounts'). */
  async function badCursors(): Promise<string[]> {
    const first = await listRest(quiet.key, 'page_size=2');
    const real = cursorParts(first.body.data.next_cursor!);
    const edit = (index: number, value: unknown) =>
      cursorOf(real.map((part, i) => (i === index ? value : part)));
    const accounts = await api<Envelope<PageOf<unknown>>>(t.url, 'GET', '/admin/accounts?page_size=1', {
      key: t.adminToken,
    });
    expect(accounts.body.data.next_cursor).toEqual(expect.any(String));
    return [
      'garbage',
      '!!!',
      cursorOf({ page: 2 } as unknown as unknown[]),
      edit(0, 'agents'),
      edit(1, 0),
      edit(1, 'two'),
      edit(2, 'yesterday'),
      edit(2, '2026-02-30 10:00:00+00'),
      edit(2, 1_700_000_000_000),
      edit(3, 'not-a-uuid'),
      edit(3, "x' OR 1=1 --"),
      cursorOf([...real, 'extra']),
      'a'.repeat(600),
      accounts.body.data.next_cursor!,
    ];
  }

  it('refuses a bad cursor with 422 on ["query","cursor"] over REST, never a 500', async () => {
    for (const cursor of await badCursors()) {
      const res = await listRest(quiet.key, `cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(422);
      expect(res.body.detail, cursor).toEqual([
        { loc: ['query', 'cursor'], msg: expect.any(String), type: expect.any(String) },
      ]);
    }
  });

  it('refuses a bad cursor over GraphQL (BAD_USER_INPUT on cursor) and tRPC (BAD_REQUEST on input.cursor)', async () => {
    const client = createVoiceClient({ url: t.url, apiKey: quiet.key });
    for (const cursor of await badCursors()) {
      const res = await graphql(quiet.key, { pageSize: 2, cursor });
      expect(res.body.data?.calls ?? null, cursor).toBeNull();
      expect(res.body.errors?.[0]?.extensions, cursor).toMatchObject({
        code: 'BAD_USER_INPUT',
        fields: ['cursor'],
      });
      const refused = await failure(client.calls.list.query({ page_size: 2, cursor }));
      expect(refused.data, cursor).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
      expect(
        refused.data?.issues?.map((issue) => issue.loc),
        cursor,
      ).toEqual([['input', 'cursor']]);
    }
  });

  it('estimates the total of a long history (total_exact false) and still pages it by cursor', async () => {
    const big = await createAccount(t, {
      name: 'Long history',
      plan: 'enterprise',
      rateLimitPerMinute: 100_000,
    });
    await seedHistory(t.databaseUrl, big.accountId, 12_000);
    for (const surface of SURFACES) {
      const first = await list(surface, big.key, { pageSize: 3 });
      const second = await list(surface, big.key, { pageSize: 3, cursor: first.next! });
      expect(first, surface).toMatchObject({ totalExact: false, hasMore: true, page: 1 });
      // The planner's estimate, from the statistics: near the real count, above the exact bound.
      expect(first.total, surface).toBeGreaterThan(10_000);
      expect(first.total, surface).toBeGreaterThan(12_000 * 0.8);
      expect(first.total, surface).toBeLessThan(12_000 * 1.2);
      expect(first.totalPages, surface).toBe(Math.ceil(first.total / 3));
      expect(second, surface).toMatchObject({ page: 2, totalExact: false, hasMore: true });
      expect(
        second.ids.some((id) => first.ids.includes(id)),
        surface,
      ).toBe(false);
    }
    // Filtered to its oldest few calls (seeded an hour and 12,000 seconds back onwards), the same
    // history is counted exactly.
    const to = new Date(Date.now() - 3_600_000 - 11_990_000).toISOString();
    const few = await listRest(big.key, `page_size=2&to=${encodeURIComponent(to)}`);
    expect(few.body.data).toMatchObject({ total_exact: true, page: 1, has_more: true });
    expect(few.body.data.total).toBeLessThan(100);
  });

  it('pages the admin lists of accounts and of an account’s keys by cursor as by number', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await api(t.url, 'POST', `/admin/accounts/${quiet.accountId}/api-keys`, {
        key: t.adminToken,
        body: { name: `spare ${i}` },
      });
      expect(res.status).toBe(201);
    }
    for (const path of ['/admin/accounts', `/admin/accounts/${quiet.accountId}/api-keys`]) {
      const get = (query: string) =>
        api<Envelope<PageOf<{ id: string }>> & ErrorEnvelope>(t.url, 'GET', `${path}?${query}`, {
          key: t.adminToken,
        });
      const byCursor: PageOf<{ id: string }>[] = [(await get('page_size=1')).body.data];
      while (byCursor.at(-1)!.next_cursor)
        byCursor.push((await get(`page_size=1&cursor=${byCursor.at(-1)!.next_cursor}`)).body.data);
      const byNumber = await Promise.all(
        byCursor.map(async (_, i) => (await get(`page_size=1&page=${i + 1}`)).body.data),
      );
      expect(byCursor.length, path).toBeGreaterThanOrEqual(3);
      expect(byCursor.map((page) => [page.page, page.items])).toEqual(
        byNumber.map((page) => [page.page, page.items]),
      );
      const ids = byCursor.flatMap((page) => page.items.map((item) => item.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect(byCursor[0]).toMatchObject({ total: ids.length, total_exact: true });
      const crossed = await get(`cursor=${(await listRest(quiet.key, 'page_size=1')).body.data.next_cursor}`);
      expect(crossed.status, path).toBe(422);
      expect(crossed.body.detail).toEqual([
        { loc: ['query', 'cursor'], msg: expect.any(String), type: expect.any(String) },
      ]);
    }
  });
});
