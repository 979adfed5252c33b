import { randomUUID } from 'node:crypto';
import type { WebhookDelivery } from '@voice/shared';
import { idsOf, infraModes } from '@voice/shared/testing';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { api, type Envelope } from '../support/http';
import {
  craftCursor,
  expectBadCursorsRefused,
  expectCursorAndNumberPagesAgree,
  type ListEndpoint,
  listPage,
  walkList,
} from './list-paging-support';
import { webhookLogSuite } from './webhook-support';

/**
 * Agents, prompt versions, SIP trunks and webhook deliveries page by cursor (keyset) beside page
 * numbers: every row once, the same pages either way, a bad cursor a 422, exact totals for short
 * lists and an estimate for long ones.
 */

const AGENT = {
  name: 'Paged',
  agent_type: 'support',
  start_flow: 'Hello, this is Paged from Acme.',
  end_flow: 'Thanks for your time, goodbye!',
};
/**
 * Cursors of a list sorted by (created_at, id) named `list`, with values that are not of those
 * columns' types or shapes, and one with no list name.
 */
const notATimeAndId = (list: string) => [
  craftCursor([list, 2, 'not a time', randomUUID()]),
  craftCursor([list, 2, '2026-13-45 25:61:00+00', randomUUID()]),
  craftCursor([list, 2, '2026-01-01 00:00:00+00', 'not-a-uuid']),
  craftCursor([list, 2, 5, randomUUID()]),
  craftCursor([list, 2, 7]),
  craftCursor([2, '2026-01-01 00:00:00+00', randomUUID()]),
];

describe.each(infraModes())('list paging by cursor (%s)', (mode) => {
  const suite = webhookLogSuite(mode, { retryBaseMs: 100 });
  const post = async <T = { id: string }>(account: TestAccount, path: string, body?: unknown) => {
    const res = await api<Envelope<T>>(suite.t.url, 'POST', path, {
      key: account.key,
      ...(body === undefined ? {} : { body }),
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const newAgent = (account: TestAccount, body: Record<string, unknown> = {}) =>
    post(account, '/v1/agents', { ...AGENT, ...body });
  const endpoint = (account: TestAccount, path: string): ListEndpoint => ({
    url: suite.t.url,
    key: account.key,
    path,
  });
  async function withSql<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = postgres(suite.t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      return await work(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }

  it('agents: every agent once by cursor, in order, rows sharing created_at (to the microsecond) ordered by id', async () => {
    const account = await createAccount(suite.t, { name: 'Agents' });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await newAgent(account, { name: `Paged ${i}` })).id);
    // Two groups of agents created at one instant each, one microsecond apart: a key rounded to
    // the millisecond would merge them and repeat or skip rows at a page boundary.
    const [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9] = ids as [string, ...string[]];
    const early = [a2, a3, a4] as string[];
    const late = [a5, a6] as string[];
    await withSql(async (sql) => {
      await sql`UPDATE agent.agents SET created_at = '2030-01-01 00:00:00.123456+00' WHERE id = ANY(${early}::uuid[])`;
      await sql`UPDATE agent.agents SET created_at = '2030-01-01 00:00:00.123457+00' WHERE id = ANY(${late}::uuid[])`;
    });
    const expected = [...late.sort(), ...early.sort(), a9, a8, a7, a1, a0] as string[];
    for (const pageSize of [1, 2, 3, 4, 10, 11]) {
      expect(
        await expectCursorAndNumberPagesAgree(endpoint(account, '/v1/agents'), expected, pageSize),
      ).toEqual(expected);
    }
  });

  it('agents: every agent there at the start once by cursor while agents are being added', async () => {
    const account = await createAccount(suite.t, { name: 'Growing' });
    const before: string[] = [];
    for (let i = 0; i < 9; i++) before.push((await newAgent(account)).id);
    const added: string[] = [];
    const pages = await walkList(endpoint(account, '/v1/agents'), 2, async () => {
      added.push((await newAgent(account)).id);
    });
    const seen = idsOf(pages);
    expect(new Set(seen).size, 'no agent twice').toBe(seen.length);
    for (const id of before) expect(seen, 'every agent there at the start').toContain(id);
    for (const id of seen) expect([...before, ...added]).toContain(id);
    expect(added.length, 'agents were added between pages').toBeGreaterThanOrEqual(4);
  });

  it('agents: a bad cursor is a 422 on cursor; a short list is counted exactly', async () => {
    const account = await createAccount(suite.t, { name: 'Short' });
    await newAgent(account);
    await expectBadCursorsRefused(endpoint(account, '/v1/agents'), notATimeAndId('agents'));
    expect(await listPage(endpoint(account, '/v1/agents'), {})).toMatchObject({
      total: 1,
      total_exact: true,
      has_more: false,
      next_cursor: null,
    });
  });

  it('agents: a list longer than 10,000 answers an estimated total (total_exact false) and pages on by cursor', async () => {
    const big = await createAccount(suite.t, { name: 'Big' });
    const small = await createAccount(suite.t, { name: 'Small' });
    await newAgent(small);
    await withSql(async (sql) => {
      await sql`
        INSERT INTO agent.agents (id, account_id, name, agent_type, language, voice, ai_model, start_flow,
                                  end_flow, prompt, prompt_source, created_at)
        SELECT gen_random_uuid(), ${big.accountId}, 'Bulk ' || g, 'support', 'en', a.voice, a.ai_model,
               a.start_flow, a.end_flow, a.prompt, 'generated', now() - g * interval '1 microsecond'
          FROM generate_series(1, 10050) g,
               (SELECT * FROM agent.agents WHERE account_id = ${small.accountId}) a`;
      await sql`ANALYZE agent.agents`;
    });
    const first = await listPage(endpoint(big, '/v1/agents'), { page_size: 100 });
    expect(first).toMatchObject({ page: 1, total_exact: false, has_more: true });
    // The planner's estimate after ANALYZE: near the real 10,050, not a count.
    expect(first.total).toBeGreaterThan(9_000);
    expect(first.total).toBeLessThan(11_500);
    const second = await listPage(endpoint(big, '/v1/agents'), {
      page_size: 100,
      cursor: first.next_cursor!,
    });
    expect(second).toMatchObject({ page: 2, total_exact: false, has_more: true });
    const firstIds = new Set(first.items.map((item) => item.id));
    expect(second.items.filter((item) => firstIds.has(item.id))).toEqual([]);
    // The other account's list is still short, and counted.
    expect(await listPage(endpoint(small, '/v1/agents'), {})).toMatchObject({ total: 1, total_exact: true });
  });

  it('prompt versions: every version once by cursor, newest first, the same as by page number; bad cursors refused', async () => {
    const account = await createAccount(suite.t, { name: 'Versions' });
    const agent = await newAgent(account);
    const path = `/v1/agents/${agent.id}/prompt-versions`;
    const saved: { id: string; version: number }[] = [];
    for (let i = 0; i < 8; i++) saved.push(await post(account, path, { label: `v${i}` }));
    const expected = saved.map((v) => v.id).reverse();
    for (const pageSize of [1, 3, 8])
      expect(await expectCursorAndNumberPagesAgree(endpoint(account, path), expected, pageSize)).toEqual(
        expected,
      );
    // Numbers the cursor's kind allows but the integer column does not, too.
    await expectBadCursorsRefused(endpoint(account, path), [
      craftCursor(['prompt_versions', 2, 1.5]),
      craftCursor(['prompt_versions', 2, 1e300]),
      craftCursor(['prompt_versions', 2, 3_000_000_000]),
      craftCursor(['prompt_versions', 2, '7']),
      craftCursor(['prompt_versions', 2, '2026-01-01 00:00:00+00', randomUUID()]),
      craftCursor([2, 7]),
    ]);
  });

  it('SIP trunks: every trunk once by cursor, rows sharing created_at ordered by id; bad cursors refused', async () => {
    const account = await createAccount(suite.t, { name: 'Trunks' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        (
          await post(account, '/v1/sip-trunks', {
            name: `Carrier ${i}`,
            uri: 'sip:127.0.0.1:5070',
            numbers: [`+1415556${String(1000 + i)}`],
          })
        ).id,
      );
    await withSql(
      (sql) =>
        sql`UPDATE telephony.trunks SET created_at = '2030-01-01 00:00:00.500001+00' WHERE id = ANY(${ids.slice(1, 5)}::uuid[])`,
    );
    const list = endpoint(account, '/v1/sip-trunks');
    for (const pageSize of [1, 2, 3]) await expectCursorAndNumberPagesAgree(list, ids, pageSize);
    const page = await listPage<{ numbers: string[]; has_password: boolean }>(list, { page_size: 100 });
    expect(page.items.every((trunk) => trunk.numbers.length === 1 && trunk.has_password === false)).toBe(
      true,
    );
    // An agents cursor has the same key kinds, but is not this list's.
    await newAgent(account);
    await newAgent(account);
    const agentsCursor = (await listPage(endpoint(account, '/v1/agents'), { page_size: 1 })).next_cursor;
    expect(agentsCursor).toEqual(expect.any(String));
    await expectBadCursorsRefused(list, [...notATimeAndId('sip_trunks'), agentsCursor!]);
  });

  it('webhook deliveries: every delivery there at the start once by cursor while deliveries are being added', async () => {
    const account = suite.acme;
    const agent = await newAgent(account, {
      webhook_config: { url: `${suite.receiver.url}/ok/paging/${mode}` },
    });
    const path = `/v1/agents/${agent.id}/webhook-deliveries`;
    const send = () => post<WebhookDelivery>(account, `/v1/agents/${agent.id}/webhook-test`);
    const before: string[] = [];
    for (let i = 0; i < 7; i++) before.push((await send()).id);
    // Deliveries sharing created_at (to the microsecond) are ordered by id, across page boundaries.
    await withSql(
      (sql) =>
        sql`UPDATE webhook.deliveries SET created_at = '2030-01-01 00:00:00.000001+00' WHERE id = ANY(${before.slice(1, 5)}::uuid[])`,
    );
    for (const pageSize of [1, 2, 3])
      await expectCursorAndNumberPagesAgree(endpoint(account, path), before, pageSize);

    const added: string[] = [];
    const pages = await walkList(endpoint(account, path), 2, async () => {
      added.push((await send()).id);
    });
    const seen = idsOf(pages);
    expect(new Set(seen).size, 'no delivery twice').toBe(seen.length);
    for (const id of before) expect(seen, 'every delivery there at the start').toContain(id);
    for (const id of seen) expect([...before, ...added]).toContain(id);
    // Another account's view of the agent is a 404, cursor or not.
    const cursor = pages[0]!.next_cursor!;
    const foreign = await api(suite.t.url, 'GET', `${path}?cursor=${cursor}`, { key: suite.other.key });
    expect(foreign.status).toBe(404);
    await expectBadCursorsRefused(endpoint(account, path), notATimeAndId('webhook_deliveries'));
  });
});
