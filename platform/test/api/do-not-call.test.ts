import { SimulatedCarrier, type TelephonyProvider } from '@voice/call-service';
import type { Call, CampaignContact, DoNotCallAdded, DoNotCallEntry, PageOf } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { campaignApi, createAgent, FROM, pollingAccount } from './campaigns-support';
import { failure } from './trpc-support';

const SIM_TIME_SCALE = 0.001;
/** The number whose call the network holds (dialed, silent) until the test releases it. */
const HELD = '+14155557100';

type Deliver = Parameters<TelephonyProvider['dial']>[1];

/** A promise and its resolve (Node 20 has no Promise.withResolvers). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * The simulated carrier, except that a call to HELD waits, dialed, until `release()`: a campaign
 * with one call at a time then reaches its next contact only when the test lets it.
 */
class HoldingNetwork implements TelephonyProvider {
  private readonly inner = new SimulatedCarrier({ timeScale: SIM_TIME_SCALE });
  readonly info = this.inner.info;
  readonly maxCallSeconds = this.inner.maxCallSeconds;
  private readonly released = deferred();
  /** Resolves once a call to HELD was dialed. */
  readonly holding = deferred();

  release(): void {
    this.released.resolve();
  }

  dial(request: Parameters<TelephonyProvider['dial']>[0], onEvent: Deliver) {
    if (request.to !== HELD) return this.inner.dial(request, onEvent);
    this.holding.resolve();
    const session = this.released.promise.then(() => this.inner.dial(request, onEvent));
    return {
      done: session.then((s) => s.done),
      hangUp: async () => (await session).hangUp(),
    };
  }

  resume(...args: Parameters<TelephonyProvider['resume']>) {
    return this.inner.resume(...args);
  }

  recording(request: Parameters<TelephonyProvider['recording']>[0]) {
    return this.inner.recording(request);
  }
}

type Res<T> = Awaited<ReturnType<typeof api<Envelope<T> & ErrorEnvelope>>>;

describe.each(infraModes())('the do-not-call list (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let globex: TestAccount;
  let acmeAgent: string;
  let globexAgent: string;
  const network = new HoldingNetwork();

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE }, callProvider: network });
    acme = await pollingAccount(t, 'Acme');
    globex = await pollingAccount(t, 'Globex');
    acmeAgent = await createAgent(t.url, acme.key);
    globexAgent = await createAgent(t.url, globex.key);
  });
  afterAll(async () => {
    network.release();
    await t?.stop();
  });

  const send = <T>(account: TestAccount, method: string, path: string, body?: unknown): Promise<Res<T>> =>
    api<Envelope<T> & ErrorEnvelope>(t.url, method, path, {
      key: account.key,
      ...(body === undefined ? {} : { body }),
    });
  const add = (account: TestAccount, body: Record<string, unknown>) =>
    send<DoNotCallAdded>(account, 'POST', '/v1/do-not-call', body);
  const entry = (account: TestAccount, number: string) =>
    send<DoNotCallEntry>(account, 'GET', `/v1/do-not-call/${encodeURIComponent(number)}`);
  const call = (account: TestAccount, agentId: string, phone_number: string) =>
    send<Call>(account, 'POST', '/v1/call', { agent_id: agentId, source_number: FROM, phone_number });

  async function waitForCall(id: string, done: (c: Call) => boolean): Promise<Call> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await send<Call>(acme, 'GET', `/v1/calls/${id}`);
      expect(res.status, res.text).toBe(200);
      if (done(res.body.data)) return res.body.data;
      if (Date.now() > deadline) throw new Error(`call ${id} never got there: ${res.text}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  it('adds numbers idempotently, answers a listed one, pages by cursor and removes one', async () => {
    const account = await pollingAccount(t, 'Lists');
    const first = await add(account, {
      numbers: ['+14155556001', '+14155556002', '+14155556001'],
      reason: 'Asked by email',
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual({ added: 2, already_listed: 1 });
    const again = await add(account, { numbers: ['+14155556001'], reason: 'Another reason' });
    expect(again.body.data).toEqual({ added: 0, already_listed: 1 });

    // The + as it is and as %2B.
    const listed = await send<DoNotCallEntry>(account, 'GET', '/v1/do-not-call/+14155556001');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toEqual({
      number: '+14155556001',
      reason: 'Asked by email',
      source: 'api',
      call_id: null,
      created_at: expect.any(String),
    });
    expect((await entry(account, '+14155556002')).status).toBe(200);

    const imported = await add(account, {
      numbers: ['+14155556003', '+14155556004', '+14155556005'],
      source: 'import',
    });
    expect(imported.body.data).toEqual({ added: 3, already_listed: 0 });
    expect((await entry(account, '+14155556004')).body.data).toMatchObject({
      source: 'import',
      reason: null,
    });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path = `/v1/do-not-call?page_size=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page: Res<PageOf<DoNotCallEntry>> = await send<PageOf<DoNotCallEntry>>(account, 'GET', path);
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.total).toBe(5);
      seen.push(...page.body.data.items.map((e) => e.number));
      cursor = page.body.data.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual([
      '+14155556001',
      '+14155556002',
      '+14155556003',
      '+14155556004',
      '+14155556005',
    ]);
    // Newest first: the later add's numbers before the first add's.
    expect(seen.slice(3).sort()).toEqual(['+14155556001', '+14155556002']);

    const removed = await send(account, 'DELETE', '/v1/do-not-call/%2B14155556001');
    expect(removed.status, removed.text).toBe(204);
    const gone = await entry(account, '+14155556001');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ success: false, detail: 'This number is not on the do-not-call list' });
    expect((await send(account, 'DELETE', '/v1/do-not-call/%2B14155556001')).status).toBe(404);
  });

  it('refuses bad input with a 422 naming it, and stores nothing of a bad add', async () => {
    const bad = await add(acme, { numbers: ['+14155556101', '4155556102', '+14155556103'] });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'numbers', 1] })]);
    expect((await entry(acme, '+14155556101')).status).toBe(404);
    expect((await entry(acme, '+14155556103')).status).toBe(404);

    for (const body of [
      {},
      { numbers: [] },
      { numbers: '+14155556101' },
      { numbers: ['+14155556101'], source: 'opt_out' },
      { numbers: ['+14155556101'], reason: 'x'.repeat(501) },
      { numbers: Array.from({ length: 100_001 }, (_, i) => `+1415${String(i).padStart(7, '0')}`) },
    ]) {
      const refused = await add(acme, body);
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    expect((await entry(acme, '+14155556101')).status).toBe(404);
    const notE164 = await send(acme, 'GET', '/v1/do-not-call/14155556101');
    expect(notE164.status).toBe(422);
    expect(notE164.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'number'] })]);
    expect((await send(acme, 'GET', '/v1/do-not-call?cursor=garbage')).status).toBe(422);
  });

  it('adds 100,000 numbers in one request, all of them', async () => {
    const account = await pollingAccount(t, 'Bulk');
    const numbers = Array.from({ length: 100_000 }, (_, i) => `+1628${String(i).padStart(7, '0')}`);
    const added = await add(account, { numbers, reason: 'Purchased suppression list', source: 'import' });
    expect(added.status, added.text.slice(0, 200)).toBe(200);
    expect(added.body.data).toEqual({ added: 100_000, already_listed: 0 });
    expect((await entry(account, numbers[99_999]!)).status).toBe(200);
    const again = await add(account, { numbers });
    expect(again.body.data).toEqual({ added: 0, already_listed: 100_000 });
    const page = await send<PageOf<DoNotCallEntry>>(account, 'GET', '/v1/do-not-call?page_size=100');
    expect(page.body.data.items).toHaveLength(100);
    expect(page.body.data.has_more).toBe(true);
  });

  it('refuses a call to a number the account lists (422 on phone_number); other accounts are unaffected', async () => {
    const number = '+14155556201';
    expect((await add(acme, { numbers: [number] })).status).toBe(200);
    const refused = await call(acme, acmeAgent, number);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'phone_number'], type: 'do_not_call' }),
    ]);

    // Globex lists nothing: Acme's entry is not its to see, change or be refused by.
    expect((await entry(globex, number)).status).toBe(404);
    expect((await send(globex, 'DELETE', `/v1/do-not-call/${encodeURIComponent(number)}`)).status).toBe(404);
    const placed = await call(globex, globexAgent, number);
    expect(placed.status, placed.text).toBe(201);
    const globexList = await send<PageOf<DoNotCallEntry>>(globex, 'GET', '/v1/do-not-call');
    expect(globexList.body.data.items).toEqual([]);
    expect((await entry(acme, number)).status).toBe(200);

    // Removed, it may be called again.
    expect((await send(acme, 'DELETE', `/v1/do-not-call/${encodeURIComponent(number)}`)).status).toBe(204);
    expect((await call(acme, acmeAgent, number)).status).toBe(201);
  });

  it('skips campaign contacts on the list, whether listed before the start or before their turn', async () => {
    const before = '+14155557001';
    const later = '+14155557002';
    expect((await add(acme, { numbers: [before] })).status).toBe(200);
    const campaigns = campaignApi(t.url, acme.key);
    const created = await campaigns.create({
      name: 'Listed contacts',
      agent_id: acmeAgent,
      phone_number: FROM,
      max_concurrent_calls: 1,
      contacts: [{ phone: before }, { phone: HELD }, { phone: later }],
    });
    // One call at a time: `later` is dialed only once the held call ends, after it is listed.
    await network.holding.promise;
    expect((await add(acme, { numbers: [later] })).status).toBe(200);
    network.release();

    const done = await campaigns.waitFor(created.id, (c) => c.status === 'completed');
    expect(done.counts).toMatchObject({ total: 3, completed: 1, skipped: 2, failed: 0 });
    const contacts = await campaigns.contacts(created.id);
    const byNumber = Object.fromEntries(contacts.map((c: CampaignContact) => [c.phone_number, c]));
    // No call was placed for them: no attempt counted, no call id that names no call.
    expect(byNumber[before]).toMatchObject({
      state: 'skipped',
      skip_reason: 'do_not_call',
      failure_reason: null,
      attempts: 0,
      call_ids: [],
    });
    expect(byNumber[later]).toMatchObject({
      state: 'skipped',
      skip_reason: 'do_not_call',
      failure_reason: null,
      attempts: 0,
      call_ids: [],
    });
    expect(byNumber[HELD]).toMatchObject({ state: 'completed', skip_reason: null });
    const calls = await campaigns.calls(created.id);
    expect(calls.map((c) => c.phone_number)).toEqual([HELD]);
  });

  it('lists a callee who opts out, with the call, and refuses the next call to them', async () => {
    const number = '+14155580005';
    const placed = await call(acme, acmeAgent, number);
    expect(placed.status, placed.text).toBe(201);
    const ended = await waitForCall(placed.body.data.id, (c) => c.ended_at !== null);
    expect(ended.opted_out).toBe(true);

    const listed = await entry(acme, number);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data).toMatchObject({ number, source: 'opt_out', call_id: placed.body.data.id });
    const again = await call(acme, acmeAgent, number);
    expect(again.status, again.text).toBe(422);
    expect(again.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'phone_number'], type: 'do_not_call' }),
    ]);
    // Another account's callee at the same number is not on this account's list, nor the reverse.
    expect((await entry(globex, number)).status).toBe(404);
  });

  it('serves the list over GraphQL and tRPC, reading with calls:read and changing with calls:write', async () => {
    const account = await pollingAccount(t, 'Surfaces');
    const gql = async (query: string, variables: Record<string, unknown> = {}) =>
      (
        await api<{ data?: Record<string, unknown>; errors?: { extensions?: Record<string, unknown> }[] }>(
          t.url,
          'POST',
          '/graphql',
          { key: account.key, body: { query, variables } },
        )
      ).body;
    const added = await gql(
      'mutation ($input: AddDoNotCallInput!) { addDoNotCall(input: $input) { added alreadyListed } }',
      { input: { numbers: ['+14155559001', '+14155559002'], reason: 'By letter', source: 'IMPORT' } },
    );
    expect(added).toEqual({ data: { addDoNotCall: { added: 2, alreadyListed: 0 } } });
    const listed = await gql(
      '{ doNotCallList(pageSize: 1) { total nextCursor items { number reason source callId createdAt } } }',
    );
    expect(listed.data?.doNotCallList).toMatchObject({
      total: 2,
      nextCursor: expect.any(String),
      items: [{ reason: 'By letter', source: 'IMPORT', callId: null }],
    });
    const missing = await gql('{ doNotCallEntry(number: "+14155559999") { number } }');
    expect(missing.data).toEqual({ doNotCallEntry: null });
    expect(missing.errors?.[0]?.extensions).toMatchObject({ reason: 'DO_NOT_CALL_ENTRY_NOT_FOUND' });
    expect(await gql('mutation { removeDoNotCall(number: "+14155559001") }')).toEqual({
      data: { removeDoNotCall: true },
    });

    const client = createVoiceClient({ url: t.url, apiKey: account.key });
    expect(await client.doNotCall.get.query({ number: '+14155559002' })).toMatchObject({ source: 'import' });
    expect(await client.doNotCall.add.mutate({ numbers: ['+14155559003'] })).toEqual({
      added: 1,
      already_listed: 0,
    });
    expect((await client.doNotCall.list.query({})).items.map((e) => e.number).sort()).toEqual([
      '+14155559002',
      '+14155559003',
    ]);
    const bad = await failure(client.doNotCall.add.mutate({ numbers: ['+14155559004', 'nope'] }));
    expect(bad.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'VALIDATION_FAILED' });
    expect(bad.data?.issues).toEqual([expect.objectContaining({ loc: ['input', 'numbers', 1] })]);
    expect((await failure(client.doNotCall.get.query({ number: '+14155559004' }))).data).toMatchObject({
      httpStatus: 404,
    });

    const readOnly = createVoiceClient({
      url: t.url,
      apiKey: await createKey(t, account.accountId, ['calls:read']),
    });
    expect((await readOnly.doNotCall.list.query({})).total).toBe(2);
    expect((await failure(readOnly.doNotCall.remove.mutate({ number: '+14155559002' }))).data).toMatchObject({
      httpStatus: 403,
    });
    const agentsOnly = await createKey(t, account.accountId, ['agents:read']);
    const refused = await api(t.url, 'GET', '/v1/do-not-call', { key: agentsOnly });
    expect(refused.status).toBe(403);
  });
});
