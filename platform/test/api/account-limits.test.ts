import { setTimeout as delay } from 'node:timers/promises';
import type { Account, Call } from '@voice/shared';
import { infraModes, parseExposition } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { mostDialedAtOnce, untilNoLiveCalls } from './account-limits-support';
import { campaignApi, completingNumbers, createAgent, FROM } from './campaigns-support';

interface Load {
  max_concurrent_calls: number;
  active_calls: number;
  waiting_calls: number;
}

/** An account polled often: its rate limit is not what the test is about. */
const POLLING = { plan: 'enterprise', rateLimitPerMinute: 100_000 };

/** Calls dialed by this instance per second: a burst of a few hundred waits seconds for its turn. */
const DIALS_PER_SECOND = 20;

describe.each(infraModes())('account concurrency and fair dialing (%s)', (mode) => {
  let t: TestPlatform;
  let sql: postgres.Sql;
  beforeAll(async () => {
    t = await startTestPlatform(mode, {
      // A completed call lasts a few seconds of wall time.
      config: { SIM_TIME_SCALE: 0.05, CALL_DIALS_PER_SECOND: DIALS_PER_SECOND },
    });
    sql = postgres(t.databaseUrl, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await t?.stop();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    api<Envelope<Account> & ErrorEnvelope>(t.url, method, path, { key: t.adminToken, body });
  const me = async (key: string) => {
    const res = await api<Envelope<{ calls: Load }>>(t.url, 'GET', '/v1/me', { key });
    expect(res.status, res.text).toBe(200);
    return res.body.data.calls;
  };
  /** What the call service enforces for the account (the gateway confirmed it before answering). */
  const enforced = async (accountId: string) => {
    const [row] = await sql<{ max_concurrent_calls: number }[]>`
      SELECT max_concurrent_calls FROM call.account_limits WHERE account_id = ${accountId}`;
    return row?.max_concurrent_calls;
  };
  const place = async (who: TestAccount, agentId: string, phone: string) => {
    const res = await api<Envelope<Call>>(t.url, 'POST', '/v1/call', {
      key: who.key,
      body: { agent_id: agentId, source_number: FROM, phone_number: phone },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.status).toBe('initializing');
    return res.body.data.id;
  };

  it('sets, changes and resets an account’s max_concurrent_calls; refuses bad values (422) and unknown accounts (404)', async () => {
    const created = await admin('POST', '/admin/accounts', {
      name: 'Limits',
      plan: 'free',
      max_concurrent_calls: 7,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({
      plan: 'free',
      rate_limit_per_minute: 60,
      max_concurrent_calls: 7,
    });
    expect(await enforced(id)).toBe(7);
    const plain = await admin('POST', '/admin/accounts', { name: 'Plain', plan: 'pro' });
    expect(plain.body.data.max_concurrent_calls).toBe(20);
    expect(await enforced(plain.body.data.id)).toBe(20);

    const steps: [unknown, Partial<Account>][] = [
      [{ max_concurrent_calls: 50 }, { plan: 'free', max_concurrent_calls: 50 }],
      [{ max_concurrent_calls: null }, { plan: 'free', max_concurrent_calls: 2 }],
      [
        { plan: 'enterprise', rate_limit_per_minute: 5000 },
        { plan: 'enterprise', rate_limit_per_minute: 5000, max_concurrent_calls: 200 },
      ],
      // Away from enterprise, the account's own rate limit goes with it.
      [{ plan: 'pro' }, { plan: 'pro', rate_limit_per_minute: 300, max_concurrent_calls: 20 }],
      [{ max_concurrent_calls: 10_000 }, { max_concurrent_calls: 10_000 }],
    ];
    for (const [body, expected] of steps) {
      const res = await admin('PATCH', `/admin/accounts/${id}`, body);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toMatchObject(expected);
      expect((await admin('GET', `/admin/accounts/${id}`)).body.data).toMatchObject(expected);
      expect(await enforced(id)).toBe(res.body.data.max_concurrent_calls);
    }
    const [synced] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM gateway.accounts WHERE NOT call_limit_synced`;
    expect(synced!.n).toBe(0);

    const refused: [unknown, string][] = [
      [{ max_concurrent_calls: 0 }, 'max_concurrent_calls'],
      [{ max_concurrent_calls: 10_001 }, 'max_concurrent_calls'],
      [{ max_concurrent_calls: 2.5 }, 'max_concurrent_calls'],
      [{ max_concurrent_calls: '5' }, 'max_concurrent_calls'],
      [{ plan: 'gold' }, 'plan'],
      // A pro account has the plan's rate limit; an enterprise one needs its own.
      [{ rate_limit_per_minute: 100 }, 'rate_limit_per_minute'],
      [{ plan: 'enterprise' }, 'rate_limit_per_minute'],
    ];
    for (const [body, field] of refused) {
      const res = await admin('PATCH', `/admin/accounts/${id}`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(422);
      expect(res.body.detail).toEqual(
        expect.arrayContaining([expect.objectContaining({ loc: ['body', field] })]),
      );
    }
    expect((await admin('PATCH', `/admin/accounts/${id}`, {})).status).toBe(422);
    expect((await admin('POST', '/admin/accounts', { name: 'X', max_concurrent_calls: 0 })).status).toBe(422);
    // Refused changes changed nothing.
    expect((await admin('GET', `/admin/accounts/${id}`)).body.data).toMatchObject({
      plan: 'pro',
      max_concurrent_calls: 10_000,
    });
    expect(
      (
        await admin('PATCH', '/admin/accounts/00000000-0000-4000-8000-000000000000', {
          max_concurrent_calls: 3,
        })
      ).status,
    ).toBe(404);
    expect((await admin('PATCH', '/admin/accounts/not-an-id', { max_concurrent_calls: 3 })).status).toBe(422);
    const anonymous = await api(t.url, 'PATCH', `/admin/accounts/${id}`, {
      body: { max_concurrent_calls: 3 },
    });
    expect(anonymous.status).toBe(401);
  });

  it('holds calls over the limit in initializing, dials them as slots free, shows the load on /v1/me; a raised limit applies at once', async () => {
    const acme = await createAccount(t, { ...POLLING, name: 'Capped', maxConcurrentCalls: 2 });
    const agentId = await createAgent(t.url, acme.key);
    expect(await me(acme.key)).toEqual({ max_concurrent_calls: 2, active_calls: 0, waiting_calls: 0 });
    const ids: string[] = [];
    for (const phone of completingNumbers(6, '+1415556')) ids.push(await place(acme, agentId, phone));

    // Two dialed, the others accepted and waiting: never refused for capacity.
    const deadline = Date.now() + 30_000;
    let load = await me(acme.key);
    while (!(load.active_calls === 2 && load.waiting_calls >= 1)) {
      expect(Date.now(), JSON.stringify(load)).toBeLessThan(deadline);
      expect(load.active_calls).toBeLessThanOrEqual(2);
      await delay(20);
      load = await me(acme.key);
    }
    expect(load.max_concurrent_calls).toBe(2);
    // This instance's metrics name the account among those waiting, held at its limit.
    const scraped = await fetch(`${t.url}/metrics`);
    expect(scraped.status).toBe(200);
    const metrics = parseExposition(await scraped.text());
    expect(metrics.sum('calls_account_waiting', { account_id: acme.accountId })).toBeGreaterThanOrEqual(1);
    expect(metrics.sum('calls_account_live', { account_id: acme.accountId })).toBeLessThanOrEqual(2);
    expect(metrics.types.get('calls_accounts_held')).toBe('gauge');
    expect(metrics.types.get('calls_dial_held_total')).toBe('counter');
    // The same over GraphQL.
    const graphql = await api<{ data: { me: { calls: Record<string, number> } } }>(
      t.url,
      'POST',
      '/graphql',
      {
        key: acme.key,
        body: { query: '{ me { calls { maxConcurrentCalls activeCalls waitingCalls } } }' },
      },
    );
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body.data.me.calls).toMatchObject({ maxConcurrentCalls: 2 });
    expect(graphql.body.data.me.calls.activeCalls).toBeLessThanOrEqual(2);
    const waiting = await sql<{ id: string; status: string }[]>`
      SELECT id, status FROM call.calls WHERE id = ANY(${ids}::uuid[]) AND dialed_at IS NULL`;
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    for (const call of waiting) expect(call.status).toBe('initializing');

    const raisedAt = new Date();
    const raised = await admin('PATCH', `/admin/accounts/${acme.accountId}`, { max_concurrent_calls: 6 });
    expect(raised.status, raised.text).toBe(200);
    await untilNoLiveCalls(sql, acme.accountId);
    const calls = await sql<{ status: string; call_end_reason: string; dialed_at: Date; ended_at: Date }[]>`
      SELECT status, call_end_reason, dialed_at, ended_at FROM call.calls WHERE id = ANY(${ids}::uuid[])`;
    for (const call of calls) expect(call).toMatchObject({ status: 'completed' });
    // Before the change, never more than two at once; after it, the waiting ones went at once.
    expect(mostDialedAtOnce(calls.filter((c) => c.dialed_at < raisedAt))).toBeLessThanOrEqual(2);
    expect(mostDialedAtOnce(calls)).toBeGreaterThan(2);
    expect(await me(acme.key)).toEqual({ max_concurrent_calls: 6, active_calls: 0, waiting_calls: 0 });
  });

  it('holds a campaign to both caps: its own and its account’s; calls over the account’s wait and complete', async () => {
    const acme = await createAccount(t, { ...POLLING, name: 'Campaigner', maxConcurrentCalls: 2 });
    const agentId = await createAgent(t.url, acme.key);
    const campaigns = campaignApi(t.url, acme.key);
    const numbers = completingNumbers(10, '+1415554');
    const created = await campaigns.create({
      name: 'Two caps',
      agent_id: agentId,
      phone_number: FROM,
      max_concurrent_calls: 5,
      contacts: numbers.map((phone, i) => ({ phone, name: `Contact ${i}` })),
    });
    // Up to five in flight for the campaign, but only two dialed: three wait in initializing.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const load = await me(acme.key);
      expect(load.active_calls).toBeLessThanOrEqual(2);
      if (load.active_calls === 2 && load.waiting_calls >= 1) break;
      expect(Date.now(), JSON.stringify(load)).toBeLessThan(deadline);
      await delay(20);
    }
    const done = await campaigns.waitFor(created.id, (c) => c.status === 'completed', 120_000);
    expect(done.counts).toMatchObject({ total: 10, completed: 10, failed: 0 });
    const calls = await sql<{ dialed_at: Date; ended_at: Date; started_at: Date }[]>`
      SELECT dialed_at, ended_at, started_at FROM call.calls WHERE campaign_id = ${created.id}`;
    expect(calls).toHaveLength(10);
    expect(mostDialedAtOnce(calls)).toBeLessThanOrEqual(2);
    // Placed (in flight for the campaign) at once: never more than its own cap.
    expect(
      mostDialedAtOnce(calls.map((c) => ({ dialed_at: c.started_at, ended_at: c.ended_at }))),
    ).toBeLessThanOrEqual(5);
  });

  it('deals dials round-robin between accounts: another account’s call placed behind a burst is dialed before the burst drains', async () => {
    const BURST = 300;
    const burst = await createAccount(t, {
      name: 'Burst',
      plan: 'enterprise',
      rateLimitPerMinute: 100_000,
      maxConcurrentCalls: 1000,
    });
    const quiet = await createAccount(t, { name: 'Quiet' });
    const [burstAgent, quietAgent] = await Promise.all([
      createAgent(t.url, burst.key),
      createAgent(t.url, quiet.key),
    ]);
    // Every call of the burst accepted, queued at DIALS_PER_SECOND: fifteen seconds of backlog,
    // part of it dialed while the rest is posted.
    await Promise.all(completingNumbers(BURST, '+1415557').map((phone) => place(burst, burstAgent, phone)));
    // Three at once: the first may go on its own (nothing of the account waits), the others
    // wait in the account's line for their turns.
    const quietIds = await Promise.all(
      completingNumbers(3, '+1415558').map((phone) => place(quiet, quietAgent, phone)),
    );
    await untilNoLiveCalls(sql, burst.accountId);
    await untilNoLiveCalls(sql, quiet.accountId);
    // For each quiet call: the burst's calls still waiting when it was accepted (its backlog), and
    // those dialed after it. First in, first out would dial it after its whole backlog (none after
    // it); the round-robin dials it at one of its next turns, ahead of most of that backlog (the
    // dial rate's bucket lets a few burst calls through at once). Judged against the backlog, not
    // the burst: on a loaded machine the burst's POSTs are slower and more of it is dialed before
    // the quiet calls arrive.
    const after = await sql<{ n: number; backlog: number; total: number }[]>`
      SELECT count(*) FILTER (WHERE c.dialed_at > q.dialed_at)::int AS n,
             count(*) FILTER (WHERE c.dialed_at > q.created_at)::int AS backlog,
             count(*)::int AS total
      FROM call.calls q JOIN call.calls c ON c.account_id = ${burst.accountId}
      WHERE q.id = ANY(${quietIds}::uuid[]) GROUP BY q.id`;
    expect(after).toHaveLength(3);
    for (const call of after) {
      expect(call.total).toBe(BURST);
      expect(
        call.backlog,
        `a backlog left to be dialed when the quiet calls came: ${JSON.stringify(after)}`,
      ).toBeGreaterThan(20);
      expect(call.n, JSON.stringify(after)).toBeGreaterThanOrEqual(call.backlog / 2);
    }
  });
});
