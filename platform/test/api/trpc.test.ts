import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { infraModes } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createVoiceClient,
  idempotent,
  type Outputs,
  type VoiceClient,
  type VoiceClientError,
} from '../../../client/src/index';
import { OPERATIONS } from '../../../gateway/src/operations/catalogue';
import { appRouter } from '../../../gateway/src/trpc/router';
import { createAccount, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { type Followed, failure, follow } from './trpc-support';

type Call = Outputs['calls']['get'];
type Campaign = Outputs['campaigns']['get'];

const FROM = '+14155550100';
const SEQUENCE = ['initializing', 'ringing', 'in_progress', 'completed'];
const SUBSCRIBERS = 200;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

const ended = (got: { data: Call }[], count = 1) =>
  got.filter((e) => e.data.ended_at !== null).length >= count;

it('offers every operation of the catalogue: reads as queries, writes as mutations', () => {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  for (const [name, op] of Object.entries(OPERATIONS)) {
    expect(procedures[name], name).toBeDefined();
    expect(procedures[name]!._def.type, name).toBe(op.scope?.endsWith(':write') ? 'mutation' : 'query');
  }
  expect(procedures['calls.onStatus']!._def.type).toBe('subscription');
  expect(procedures['campaigns.onProgress']!._def.type).toBe('subscription');
});

describe.each(infraModes())('tRPC at /trpc (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  let client: VoiceClient;
  let theirClient: VoiceClient;
  const streams: Followed<unknown>[] = [];

  const clientFor = (apiKey?: string) => createVoiceClient({ url: t.url, apiKey });
  const trpcUrl = (path: string, input?: unknown) =>
    `${t.url}/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;

  async function createAgent(name: string, on = client): Promise<string> {
    const agent = await on.agents.create.mutate({
      name,
      start_flow: `Hi, this is ${name} from Acme.`,
      end_flow: 'Thanks for your time, goodbye!',
    });
    return agent.id;
  }

  function followCalls(
    on: VoiceClient,
    input: { id?: string; agent_id?: string },
    until?: (got: { data: Call }[]) => boolean,
  ) {
    const stream = follow<Call>((handlers) => on.calls.onStatus.subscribe(input, handlers), until);
    streams.push(stream as Followed<unknown>);
    return stream;
  }

  async function finished(id: string): Promise<Call> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const call = await client.calls.get.query({ id });
      if (call.ended_at) return call;
      if (Date.now() > deadline) throw new Error(`call ${id} did not end`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002 } });
    [acme, other] = await Promise.all([
      createAccount(t, { name: 'Acme' }),
      createAccount(t, { name: 'Other' }),
    ]);
    client = clientFor(acme.key);
    theirClient = clientFor(other.key);
  });
  afterAll(async () => {
    for (const stream of streams) stream.stop();
    await t?.stop();
  });

  it('answers discovery without a key, batched, in REST shapes', async () => {
    const anonymous = clientFor();
    const [industries, types, voices, languages] = await Promise.all([
      anonymous.discovery.industries.query(),
      anonymous.discovery.agentTypes.query({ industry: 'real_estate' }),
      anonymous.discovery.voices.query(),
      anonymous.discovery.languages.query(),
    ]);
    const rest = await api<Envelope<unknown>>(t.url, 'GET', '/v1/industries');
    expect(industries).toEqual(rest.body.data);
    expect(types.length).toBeGreaterThan(0);
    expect(voices.length).toBeGreaterThan(0);
    expect(languages.length).toBeGreaterThan(0);
  });

  it('runs agent CRUD and prompt versions, returning REST’s records', async () => {
    const created = await client.agents.create.mutate({
      name: 'Gwen',
      agent_type: 'support',
      start_flow: 'Hello, Gwen here.',
      end_flow: 'Bye now.',
    });
    expect(created).toMatchObject({ name: 'Gwen', agent_type: 'support', prompt_source: 'generated' });
    const rest = await api<Envelope<unknown>>(t.url, 'GET', `/v1/agents/${created.id}`, { key: acme.key });
    expect(await client.agents.get.query({ id: created.id })).toEqual(rest.body.data);

    const updated = await client.agents.update.mutate({
      id: created.id,
      name: 'Gwen II',
      description: 'Support',
    });
    expect(updated).toMatchObject({ name: 'Gwen II', description: 'Support' });
    const instructions = await client.agents.saveInstructions.mutate({
      id: created.id,
      instructions: 'Be brief and kind.',
    });
    expect(instructions).toMatchObject({ prompt: 'Be brief and kind.', prompt_source: 'custom' });
    expect((await client.agents.prompt.query({ id: created.id })).prompt).toBe('Be brief and kind.');

    const saved = await client.agents.versions.save.mutate({ id: created.id, label: 'v1' });
    expect(saved).toMatchObject({ version: 1, is_active: true, label: 'v1' });
    const [versions, status, page] = await Promise.all([
      client.agents.versions.list.query({ id: created.id, page_size: 5 }),
      client.agents.versions.status.query({ id: created.id }),
      client.agents.list.query({ page: 1, page_size: 1 }),
    ]);
    expect(versions).toMatchObject({ total: 1, items: [{ id: saved.id }] });
    expect(status).toMatchObject({ active_version_id: saved.id });
    expect(page).toMatchObject({ page: 1, page_size: 1 });
    const restored = await client.agents.versions.restore.mutate({ id: created.id, version_id: saved.id });
    expect(restored.active_prompt_version_id).toBe(saved.id);
    // The active version cannot be deleted: CONFLICT, REST's 409.
    const conflict = await failure(
      client.agents.versions.delete.mutate({ id: created.id, version_id: saved.id }),
    );
    expect(conflict.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409 });

    await client.agents.delete.mutate({ id: created.id });
    const gone = await failure(client.agents.get.query({ id: created.id }));
    expect(gone.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, reason: 'AGENT_NOT_FOUND' });
  });

  it('places a call once per Idempotency-Key, and reads it back', async () => {
    const agentId = await createAgent('Once');
    const body = {
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155550177',
      metadata: { crm: 7 },
    };
    const key = `trpc-${randomUUID()}`;
    const first = await client.calls.create.mutate(body, idempotent(key));
    const again = await client.calls.create.mutate(body, idempotent(key));
    expect(first).toMatchObject({ status: 'initializing', agent_id: agentId, metadata: { crm: 7 } });
    expect(again.id).toBe(first.id);
    const reused = await failure(
      client.calls.create.mutate({ ...body, phone_number: '+14155550178' }, idempotent(key)),
    );
    expect(reused.data).toMatchObject({ code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_REUSED' });
    const badKey = await failure(client.calls.create.mutate(body, idempotent('short')));
    expect(badKey.data).toMatchObject({
      code: 'BAD_REQUEST',
      issues: [{ loc: ['header', 'idempotency-key'] }],
    });

    const call = await finished(first.id);
    expect(call.status).toBe('completed');
    expect(new URL(call.recording_url!).pathname).toBe(`/v1/recordings/${first.id}.wav`);
    const list = await client.calls.list.query({ agent_id: agentId });
    expect(list.items.map((c) => c.id)).toEqual([first.id]);
  });

  it('streams a call’s transitions in order over SSE, and nothing to another account', async () => {
    const agentId = await createAgent('Streamer');
    const mine = followCalls(client, { agent_id: agentId }, (got) => ended(got));
    // The other account names Acme's agent, or nothing: it must see none of Acme's calls.
    const spy = followCalls(theirClient, { agent_id: agentId });
    const spyAll = followCalls(theirClient, {});
    await Promise.all([mine.started, spy.started, spyAll.started]);

    const placed = await client.calls.create.mutate({
      agent_id: agentId,
      source_number: FROM,
      phone_number: '+14155550123',
    });
    await mine.done;
    expect(mine.errors).toEqual([]);
    expect(mine.got.map((e) => e.data.status)).toEqual(SEQUENCE);
    expect(new Set(mine.got.map((e) => e.data.id))).toEqual(new Set([placed.id]));
    // Tracked ids: <call>:<sequence>, increasing.
    const sequences = mine.got.map((e) => {
      const [id, sequence] = e.id.split(':');
      expect(id).toBe(placed.id);
      return Number(sequence);
    });
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    const last = mine.got.at(-1)!.data;
    expect(new URL(last.recording_url!).pathname).toBe(`/v1/recordings/${placed.id}.wav`);
    await new Promise((r) => setTimeout(r, 300));
    expect(spy.got).toEqual([]);
    expect(spyAll.got).toEqual([]);
    for (const s of [mine, spy, spyAll]) s.stop();
  });

  it('refuses subscriptions without a key, without the scope, or to another account’s call', async () => {
    const theirAgent = await createAgent('Private', theirClient);
    const theirCall = await theirClient.calls.create.mutate({
      agent_id: theirAgent,
      source_number: FROM,
      phone_number: '+14155550199',
    });
    const agentsOnly = await createKey(t, acme.accountId, ['agents:read']);
    const cases = [
      [followCalls(clientFor(), {}), 'UNAUTHORIZED'],
      [followCalls(clientFor('vk_live_not_a_real_key_000000000000000'), {}), 'UNAUTHORIZED'],
      [followCalls(clientFor(agentsOnly), {}), 'FORBIDDEN'],
      [followCalls(client, { id: theirCall.id }), 'NOT_FOUND'],
    ] as const;
    const progress = follow<Campaign>((handlers) =>
      client.campaigns.onProgress.subscribe({ id: randomUUID() }, handlers),
    );
    await Promise.all([...cases.map(([s]) => s.done), progress.done]);
    for (const [stream, code] of cases) {
      expect(stream.got).toEqual([]);
      expect((stream.errors[0] as VoiceClientError).data?.code).toBe(code);
    }
    expect((progress.errors[0] as VoiceClientError).data).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'CAMPAIGN_NOT_FOUND',
    });
    const invalid = await new Promise<unknown>((resolve) => {
      // An id that is not a UUID: BAD_REQUEST with the issues, as for queries.
      client.calls.onStatus.subscribe({ id: 'nope' }, { onError: resolve });
    });
    expect((invalid as VoiceClientError).data).toMatchObject({
      code: 'BAD_REQUEST',
      issues: [{ loc: ['input', 'id'] }],
    });
  });

  it('refuses a missing or bad key with UNAUTHORIZED (HTTP 401), and a missing scope with FORBIDDEN', async () => {
    const anonymous = await failure(clientFor().agents.list.query());
    expect(anonymous.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    // A bad key is refused even for public procedures, as the edge found it bad.
    const bad = clientFor('vk_live_not_a_real_key_000000000000000');
    for (const attempt of [bad.agents.list.query(), bad.discovery.voices.query()]) {
      expect((await failure(attempt)).data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    }
    const raw = await fetch(trpcUrl('agents.list'), {
      headers: { authorization: 'Bearer vk_live_not_a_real_key_000000000000000' },
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(raw.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(((await raw.json()) as { error: { data: { code: string } } }).error.data.code).toBe(
      'UNAUTHORIZED',
    );

    const callsOnly = clientFor(await createKey(t, acme.accountId, ['calls:read']));
    const forbidden = await failure(callsOnly.agents.list.query());
    expect(forbidden.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    expect(forbidden.message).toMatch(/agents:read/);
  });

  it('answers NOT_FOUND for another account’s agent and BAD_REQUEST with the issues', async () => {
    const theirs = await createAgent('Theirs', theirClient);
    const notFound = await failure(client.agents.get.query({ id: theirs }));
    expect(notFound.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, reason: 'AGENT_NOT_FOUND' });
    // A call naming another account's agent is not found, never placed.
    const crossed = await failure(
      client.calls.create.mutate({ agent_id: theirs, source_number: FROM, phone_number: '+14155550188' }),
    );
    expect(crossed.data?.code).toBe('NOT_FOUND');

    const invalid = await failure(
      client.calls.create.mutate({ agent_id: theirs, source_number: 'nope', phone_number: '12' }),
    );
    expect(invalid.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, reason: 'VALIDATION_FAILED' });
    expect(invalid.data?.issues?.map((i) => i.loc)).toEqual(
      expect.arrayContaining([
        ['input', 'source_number'],
        ['input', 'phone_number'],
      ]),
    );
    for (const issue of invalid.data?.issues ?? []) {
      expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    }
  });

  it('locates every issue from `input`, those a service finds too (REST says `body` for them)', async () => {
    const invalid = await failure(
      client.agents.create.mutate({ name: 'Voiceless', start_flow: 'Hi.', end_flow: 'Bye.', voice: 'nope' }),
    );
    expect(invalid.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'VALIDATION_FAILED' });
    expect(invalid.data?.issues).toEqual([
      { loc: ['input', 'voice'], msg: expect.any(String), type: 'catalogue' },
    ]);
  });

  it('charges one budget per key across REST and tRPC, answering TOO_MANY_REQUESTS (429)', async () => {
    const small = await createAccount(t, { name: 'Small', plan: 'enterprise', rateLimitPerMinute: 3 });
    const smallClient = clientFor(small.key);
    expect((await api(t.url, 'GET', '/v1/agents', { key: small.key })).status).toBe(200);
    await smallClient.agents.list.query();
    const res = await fetch(trpcUrl('agents.list'), { headers: { authorization: `Bearer ${small.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await failure(smallClient.agents.list.query());
    expect(limited.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', httpStatus: 429 });
    const raw = await fetch(trpcUrl('discovery.voices'), {
      headers: { authorization: `Bearer ${small.key}` },
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).not.toBeNull();
    expect((await api(t.url, 'GET', '/v1/agents', { key: small.key })).status).toBe(429);
  });

  it('serves plain HTTP: GET queries with ?input=, POST mutations with a JSON body, batches', async () => {
    const auth = { authorization: `Bearer ${acme.key}` };
    const created = await fetch(`${t.url}/trpc/agents.create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Plain', start_flow: 'Hello from Plain.', end_flow: 'Goodbye!' }),
    });
    expect(created.status).toBe(200);
    const { result } = (await created.json()) as { result: { data: { id: string; name: string } } };
    expect(result.data.name).toBe('Plain');

    const got = await fetch(trpcUrl('agents.get', { id: result.data.id }), { headers: auth });
    expect(got.status).toBe(200);
    expect(got.headers.get('x-request-id')).not.toBeNull();
    expect(((await got.json()) as { result: { data: { id: string } } }).result.data.id).toBe(result.data.id);

    const invalid = await fetch(trpcUrl('agents.get', { id: 'not-a-uuid' }), { headers: auth });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as { error: { data: { code: string; issues: unknown[] } } };
    expect(body.error.data).toMatchObject({ code: 'BAD_REQUEST', issues: [{ loc: ['input', 'id'] }] });

    const batch = await fetch(
      `${t.url}/trpc/agents.get,discovery.voices,agents.get?batch=1&input=${encodeURIComponent(
        JSON.stringify({ 0: { id: result.data.id }, 2: { id: randomUUID() } }),
      )}`,
      { headers: auth },
    );
    expect(batch.status).toBe(207);
    const parts = (await batch.json()) as { result?: unknown; error?: { data: { code: string } } }[];
    expect(parts.map((p) => (p.error ? p.error.data.code : 'ok'))).toEqual(['ok', 'ok', 'NOT_FOUND']);

    // A subscription is a plain SSE stream too.
    const ac = new AbortController();
    const sse = await fetch(trpcUrl('calls.onStatus', {}), { headers: auth, signal: ac.signal });
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = sse.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('event: connected');
    ac.abort();
  });

  it('follows a campaign over campaigns.onProgress, through pause and resume, to the end', async () => {
    const agentId = await createAgent('Campaigner');
    // One at a time, enough of them (seconds of calls) for the pause to come while it runs.
    const CONTACTS = 20;
    const phones = Array.from({ length: CONTACTS }, (_, i) => ({
      phone: `+141555504${String(10 + i)}`,
      name: `Contact ${i}`,
    }));
    const created = await client.campaigns.create.mutate(
      {
        name: 'Spring',
        agent_id: agentId,
        phone_number: FROM,
        max_concurrent_calls: 1,
        // Made due below, once the subscription listens (so it sees the campaign start).
        start_at: new Date(Date.now() + 3_600_000).toISOString(),
        contacts: [...phones, { phone: 'not a number' }],
      },
      idempotent(`trpc-campaign-${randomUUID()}`),
    );
    expect(created).toMatchObject({ status: 'scheduled', counts: { total: CONTACTS + 1 } });
    const progress = follow<Campaign>(
      (handlers) => client.campaigns.onProgress.subscribe({ id: created.id }, handlers),
      (got) => got.some((e) => e.data.status === 'completed'),
    );
    const theirs = follow<Campaign>((handlers) =>
      theirClient.campaigns.onProgress.subscribe({ id: created.id }, handlers),
    );
    streams.push(progress as Followed<unknown>, theirs as Followed<unknown>);
    await progress.started;
    // The dispatcher starts scheduled campaigns whose start_at has come.
    const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql`UPDATE campaign.campaigns SET start_at = now() WHERE id = ${created.id}`;
    } finally {
      await sql.end();
    }
    await vi.waitFor(() => expect(progress.got.some((e) => e.data.status === 'running')).toBe(true), {
      timeout: 30_000,
      interval: 10,
    });
    expect((await client.campaigns.pause.mutate({ id: created.id })).status).toBe('paused');
    const [listed, paused] = await Promise.all([
      client.campaigns.list.query({ page_size: 10 }),
      client.campaigns.get.query({ id: created.id }),
    ]);
    expect(listed.items.map((c) => c.id)).toContain(created.id);
    expect(paused.status).toBe('paused');
    expect((await client.campaigns.resume.mutate({ id: created.id })).status).toBe('running');
    await progress.done;
    expect(progress.errors).toEqual([]);
    const statuses = progress.got.map((e) => e.data.status);
    expect(statuses).toEqual(expect.arrayContaining(['running', 'paused']));
    expect(statuses.at(-1)).toBe('completed');
    expect(progress.got.at(-1)!.data.counts).toMatchObject({
      total: CONTACTS + 1,
      completed: CONTACTS,
      skipped: 1,
      pending: 0,
    });
    for (const e of progress.got) expect(e.data.counts.in_progress).toBeLessThanOrEqual(1);

    await theirs.done;
    expect(theirs.got).toEqual([]);
    expect((theirs.errors[0] as VoiceClientError).data?.code).toBe('NOT_FOUND');
    const cancel = await failure(client.campaigns.cancel.mutate({ id: created.id }));
    expect(cancel.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409 });
    const calls = await client.calls.list.query({ campaign_id: created.id });
    expect(calls.total).toBe(CONTACTS);
  });

  it(`delivers every event of the account to ${SUBSCRIBERS} concurrent SSE subscribers`, async () => {
    const big = await createAccount(t, { name: 'Big', plan: 'enterprise', rateLimitPerMinute: 100_000 });
    const bigClient = clientFor(big.key);
    const agentId = await createAgent('Fan-out', bigClient);
    const hub = t.platform.gateway!.deps.live;
    const before = hub.listenerCount;
    const CALLS = 2;
    const started = Date.now();
    const subscribers = Array.from({ length: SUBSCRIBERS }, () =>
      followCalls(bigClient, { agent_id: agentId }, (got) => ended(got, CALLS)),
    );
    const outsider = followCalls(client, {});
    await Promise.all([...subscribers.map((s) => s.started), outsider.started]);
    expect(hub.listenerCount).toBeGreaterThanOrEqual(before + SUBSCRIBERS + 1);
    const placed = await Promise.all(
      ['+14155550301', '+14155550302'].map(async (phone_number) => {
        const call = await bigClient.calls.create.mutate({
          agent_id: agentId,
          source_number: FROM,
          phone_number,
        });
        return call.id;
      }),
    );
    await Promise.all(subscribers.map((s) => s.done));
    const elapsed = Date.now() - started;
    for (const stream of subscribers) {
      expect(stream.errors).toEqual([]);
      for (const id of placed) {
        expect(stream.got.filter((e) => e.data.id === id).map((e) => e.data.status)).toEqual(SEQUENCE);
      }
      stream.stop();
    }
    expect(outsider.got.filter((e) => placed.includes(e.data.id))).toEqual([]);
    outsider.stop();
    // Closed streams release their listeners.
    await vi.waitFor(() => expect(hub.listenerCount).toBeLessThanOrEqual(before), {
      timeout: 30_000,
      interval: 50,
    });
    console.info(`tRPC SSE fan-out (${mode}): ${SUBSCRIBERS} subscribers, ${CALLS} calls in ${elapsed} ms`);
  });

  it('runs the @voice/client example against the gateway', async () => {
    const { stdout } = await promisify(execFile)(
      'pnpm',
      ['--silent', '--filter', '@voice/client', 'example'],
      {
        cwd: ROOT,
        env: { ...process.env, VOICE_API_URL: t.url, VOICE_API_KEY: acme.key },
        timeout: 30_000,
      },
    );
    expect(stdout).toMatch(/call [0-9a-f-]{36} placed/);
    expect(stdout).toMatch(/ringing/);
    expect(stdout).toMatch(/ended: completed/);
  }, 40_000);
});

it('closes promptly with subscriptions open, ending them with SHUTTING_DOWN so clients reconnect', async () => {
  const t = await startTestPlatform('embedded');
  let stopped = false;
  try {
    const acme = await createAccount(t);
    const client = createVoiceClient({ url: t.url, apiKey: acme.key });
    const typed = follow<Call>((handlers) => client.calls.onStatus.subscribe({}, handlers));
    const raw = await fetch(`${t.url}/trpc/calls.onStatus?input=%7B%7D`, {
      headers: { authorization: `Bearer ${acme.key}` },
    });
    await typed.started;
    const closedAt = Date.now();
    await t.platform.stop();
    // A stop that waited for the streams to end by themselves would never end; a normal one takes
    // about a second, several on a loaded machine.
    expect(Date.now() - closedAt).toBeLessThan(15_000);
    await t.stop();
    stopped = true;
    const text = await raw.text();
    expect(text).toContain('event: serialized-error');
    expect(text).toMatch(/"code":"SERVICE_UNAVAILABLE".*"reason":"SHUTTING_DOWN"/);
    // A retryable code: the typed client does not fail, it tries to reconnect.
    expect(typed.errors).toEqual([]);
    typed.stop();
  } finally {
    if (!stopped) await t.stop();
  }
});
