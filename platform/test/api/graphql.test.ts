import { randomUUID } from 'node:crypto';
import { infraModes } from '@voice/shared/testing';
import { type Client, createClient } from 'graphql-ws';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createAccount, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';

interface GraphQLResponse<T = Record<string, unknown>> {
  data?: T | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

const FROM = '+14155550100';
const SUBSCRIBERS = 200;

describe.each(infraModes())('GraphQL at /graphql (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  const sockets: Client[] = [];

  async function gql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    key: string | null = acme.key,
  ) {
    const res = await api<GraphQLResponse<T>>(t.url, 'POST', '/graphql', {
      key: key ?? undefined,
      body: { query, variables },
    });
    return { status: res.status, headers: res.headers, ...res.body };
  }

  function wsClient(authorization: string | undefined, onClose?: (code: number) => void): Client {
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: authorization === undefined ? {} : { authorization },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      on: { closed: (event) => onClose?.((event as { code: number }).code) },
    });
    sockets.push(client);
    return client;
  }

  /** Subscriptions take a moment to reach the gateway's hub; a loaded machine may take seconds. */
  const HUB_WAIT = { timeout: 30_000, interval: 20 };
  /** No subscription of an earlier test is left listening on the gateway's hub. */
  async function hubIdle(): Promise<void> {
    await vi.waitFor(() => expect(t.platform.gateway!.deps.live.listenerCount).toBe(0), HUB_WAIT);
  }
  /** `n` subscriptions listen on the hub (after hubIdle): they see every event from now on. */
  async function hubListening(n: number): Promise<void> {
    await vi.waitFor(
      () => expect(t.platform.gateway!.deps.live.listenerCount).toBeGreaterThanOrEqual(n),
      HUB_WAIT,
    );
  }

  /** Collects a subscription's events until `until` says it has them all. */
  function collect<T>(
    client: Client,
    query: string,
    variables: Record<string, unknown>,
    until: (got: T[]) => boolean,
  ) {
    const got: T[] = [];
    const errors: unknown[] = [];
    let ready: () => void;
    const done = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const stop = client.subscribe<T>(
      { query, variables },
      {
        next: (value) => {
          if (value.errors) errors.push(...value.errors);
          if (value.data) got.push(value.data as T);
          if (until(got)) ready();
        },
        error: (error) => {
          errors.push(error);
          ready();
        },
        complete: () => ready(),
      },
    );
    return { got, errors, done, stop };
  }

  async function createAgent(name: string, key = acme.key): Promise<string> {
    const res = await gql<{ createAgent: { id: string } }>(
      `mutation ($input: CreateAgentInput!) { createAgent(input: $input) { id } }`,
      { input: { name, startFlow: `Hi, this is ${name}.`, endFlow: 'Goodbye!' } },
      key,
    );
    expect(res.errors).toBeUndefined();
    return res.data!.createAgent.id;
  }

  async function makeCall(agentId: string, phoneNumber = '+14155550123', key = acme.key): Promise<string> {
    const res = await gql<{ makeCall: { id: string } }>(
      `mutation ($input: MakeCallInput!) { makeCall(input: $input) { id } }`,
      { input: { agentId, sourceNumber: FROM, phoneNumber } },
      key,
    );
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.makeCall.id;
  }

  async function finished(callId: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await gql<{ call: { endedAt: string | null } }>(
        `query ($id: ID!) { call(id: $id) { endedAt } }`,
        {
          id: callId,
        },
      );
      if (res.data?.call.endedAt) return;
      if (Date.now() > deadline) throw new Error(`call ${callId} did not end`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { SIM_TIME_SCALE: 0.002 } });
    [acme, other] = await Promise.all([
      // Its 200 subscribers each charge a connection_init and a subscription: more than pro's 300 a minute.
      createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 2000 }),
      createAccount(t, { name: 'Other' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await t?.stop();
  });

  it('answers the public catalogue without a key, in camelCase', async () => {
    const res = await gql<{
      industries: { id: string; agentTypeCount: number }[];
      languages: { nativeName: string }[];
    }>('{ industries { id agentTypeCount } languages { code nativeName } voices { id default } }', {}, null);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data!.industries.length).toBeGreaterThan(0);
    expect(res.data!.industries[0]!.agentTypeCount).toBeGreaterThan(0);
    expect(res.data!.languages.some((l) => l.nativeName.length > 0)).toBe(true);
    const types = await gql<{ agentTypes: { id: string; collects: unknown[] }[] }>(
      `query ($industry: String!) { agentTypes(industry: $industry) { id category collects { name required } } }`,
      { industry: 'real_estate' },
      null,
    );
    expect(types.errors).toBeUndefined();
    expect(types.data!.agentTypes.length).toBeGreaterThan(0);
  });

  it('runs the agent mutations and queries of REST, with the same records', async () => {
    const created = await gql<{ createAgent: Record<string, unknown> }>(
      `mutation ($input: CreateAgentInput!) {
        createAgent(input: $input) { id name agentType language promptSource webhookConfig { url events hasSecret } }
      }`,
      {
        input: {
          name: 'Gwen',
          agentType: 'support',
          startFlow: 'Hello, Gwen here.',
          endFlow: 'Bye now.',
          webhookConfig: { url: 'https://hooks.example.com/gwen', secret: 'a-secret-of-enough-length' },
        },
      },
    );
    expect(created.errors).toBeUndefined();
    const agent = created.data!.createAgent as { id: string };
    expect(created.data!.createAgent).toMatchObject({
      name: 'Gwen',
      agentType: 'support',
      promptSource: 'GENERATED',
      webhookConfig: { url: 'https://hooks.example.com/gwen', events: ['CALL_ENDED'], hasSecret: true },
    });
    const rest = await api<{ data: { name: string; prompt: string } }>(
      t.url,
      'GET',
      `/v1/agents/${agent.id}`,
      {
        key: acme.key,
      },
    );
    const updated = await gql<{ updateAgent: { name: string; description: string | null } }>(
      `mutation ($id: ID!, $input: UpdateAgentInput!) { updateAgent(id: $id, input: $input) { name description } }`,
      { id: agent.id, input: { name: 'Gwen II', description: 'Support line' } },
    );
    expect(updated.data!.updateAgent).toEqual({ name: 'Gwen II', description: 'Support line' });

    const instructions = await gql<{ saveAgentInstructions: { promptSource: string; prompt: string } }>(
      `mutation ($id: ID!) { saveAgentInstructions(id: $id, instructions: "Be brief and kind.") { prompt promptSource } }`,
      { id: agent.id },
    );
    expect(instructions.data!.saveAgentInstructions).toEqual({
      prompt: 'Be brief and kind.',
      promptSource: 'CUSTOM',
    });
    const saved = await gql<{ savePromptVersion: { id: string; version: number; isActive: boolean } }>(
      `mutation ($id: ID!) { savePromptVersion(agentId: $id, label: "v1") { id version isActive label } }`,
      { id: agent.id },
    );
    expect(saved.data!.savePromptVersion).toMatchObject({ version: 1, isActive: true });
    const restored = await gql<{ restorePromptVersion: { activePromptVersionId: string } }>(
      `mutation ($id: ID!, $v: ID!) { restorePromptVersion(agentId: $id, versionId: $v) { activePromptVersionId } }`,
      { id: agent.id, v: saved.data!.savePromptVersion.id },
    );
    expect(restored.data!.restorePromptVersion.activePromptVersionId).toBe(saved.data!.savePromptVersion.id);
    // The active version cannot be deleted: CONFLICT, as REST's 409.
    const conflict = await gql(
      `mutation ($id: ID!, $v: ID!) { deletePromptVersion(agentId: $id, versionId: $v) }`,
      {
        id: agent.id,
        v: saved.data!.savePromptVersion.id,
      },
    );
    expect(conflict.errors?.[0]?.extensions?.code).toBe('CONFLICT');

    const read = await gql<{ agent: { name: string; prompt: string; promptVersions: { total: number } } }>(
      `query ($id: ID!) { agent(id: $id) { name prompt promptVersions(pageSize: 5) { total items { version } } } }`,
      { id: agent.id },
    );
    expect(read.data!.agent).toMatchObject({
      name: 'Gwen II',
      prompt: 'Be brief and kind.',
      promptVersions: { total: 1 },
    });
    expect(rest.body.data.name).toBe('Gwen');

    const page = await gql<{ agents: Record<string, unknown> }>(
      '{ agents(page: 1, pageSize: 1) { page pageSize total totalPages hasMore items { id } } }',
    );
    expect(page.data!.agents).toMatchObject({ page: 1, pageSize: 1 });
    expect(page.data!.agents.total as number).toBeGreaterThanOrEqual(1);

    const deleted = await gql<{ deleteAgent: boolean }>(`mutation ($id: ID!) { deleteAgent(id: $id) }`, {
      id: agent.id,
    });
    expect(deleted.data!.deleteAgent).toBe(true);
    const gone = await gql(`query ($id: ID!) { agent(id: $id) { id } }`, { id: agent.id });
    expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('places a call once per idempotency key, and reads it back with its agent batched', async () => {
    const [a1, a2] = await Promise.all([createAgent('Batch One'), createAgent('Batch Two')]);
    const key = `gql-${randomUUID()}`;
    const place = () =>
      gql<{ makeCall: { id: string; status: string; agentName: string } }>(
        `mutation ($input: MakeCallInput!, $key: String) {
          makeCall(input: $input, idempotencyKey: $key) { id status agentName metadata }
        }`,
        {
          input: { agentId: a1, sourceNumber: FROM, phoneNumber: '+14155550177', metadata: { crm: 7 } },
          key,
        },
      );
    const first = await place();
    const again = await place();
    expect(first.errors).toBeUndefined();
    expect(first.data!.makeCall).toMatchObject({ status: 'INITIALIZING', agentName: 'Batch One' });
    expect(again.data!.makeCall.id).toBe(first.data!.makeCall.id);

    const ids = [first.data!.makeCall.id, await makeCall(a2), await makeCall(a1), await makeCall(a2)];
    await Promise.all(ids.map(finished));

    // Count the agent lookups the gateway sends while resolving Call.agent for the page.
    const bus = t.platform.infrastructure.bus;
    const original = bus.request.bind(bus);
    const asked: string[] = [];
    bus.request = ((subject: string, ...rest: unknown[]) => {
      asked.push(subject);
      return (original as (...args: unknown[]) => unknown)(subject, ...rest);
    }) as typeof bus.request;
    let res: Awaited<
      ReturnType<typeof gql<{ calls: { items: { id: string; status: string; agent: { name: string } }[] } }>>
    >;
    try {
      res = await gql(
        `query ($agentA: ID!) { calls(pageSize: 10) { total items { id status durationSeconds sentiment agent { id name } } } x: calls(agentId: $agentA) { total } }`,
        { agentA: a1 },
      );
    } finally {
      bus.request = original;
    }
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    const items = res.data!.calls.items.filter((c) => ids.includes(c.id));
    expect(items).toHaveLength(4);
    for (const call of items) {
      expect(call.status).toBe('COMPLETED');
      expect(['Batch One', 'Batch Two']).toContain(call.agent.name);
    }
    expect(asked.filter((s) => s.endsWith('agent.get_many'))).toHaveLength(1);
    expect(asked.filter((s) => s.endsWith('agent.get'))).toHaveLength(0);
  });

  it('maps errors to extensions.code: UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, BAD_USER_INPUT', async () => {
    const anonymous = await gql('{ agents { total } }', {}, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const badKey = await gql('{ agents { total } }', {}, 'vk_live_not_a_real_key_000000000000000');
    expect(badKey.status).toBe(401);
    expect(badKey.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const callsOnly = await createKey(t, acme.accountId, ['calls:read']);
    const forbidden = await gql('{ agents { total } }', {}, callsOnly);
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(forbidden.errors?.[0]?.extensions?.reason).toBe('FORBIDDEN');

    const theirs = await createAgent('Theirs', other.key);
    const notFound = await gql(`query ($id: ID!) { agent(id: $id) { id } }`, { id: theirs });
    expect(notFound.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // The error catalogue's code, as tRPC's data.reason and REST's documented errors name it.
    expect(notFound.errors?.[0]?.extensions?.reason).toBe('AGENT_NOT_FOUND');
    expect(notFound.data).toEqual({ agent: null });

    const invalid = await gql(`mutation ($input: MakeCallInput!) { makeCall(input: $input) { id } }`, {
      input: { agentId: theirs, sourceNumber: 'nope', phoneNumber: '12' },
    });
    const error = invalid.errors?.[0];
    expect(error?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error?.extensions?.reason).toBe('VALIDATION_FAILED');
    expect(error?.extensions?.fields).toEqual(expect.arrayContaining(['sourceNumber', 'phoneNumber']));
    // A call naming another account's agent is not found, never placed.
    const crossed = await gql(`mutation ($input: MakeCallInput!) { makeCall(input: $input) { id } }`, {
      input: { agentId: theirs, sourceNumber: FROM, phoneNumber: '+14155550188' },
    });
    expect(crossed.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('runs what REST alone did: me, AI models, prompt version status, webhook test and redelivery', async () => {
    const read = await gql<{
      me: { account: { plan: string }; key: { scopes: string[] } };
      aiModels: { id: string; default: boolean }[];
    }>('{ me { account { plan rateLimitPerMinute } key { scopes } } aiModels { id default } }');
    expect(read.errors).toBeUndefined();
    expect(read.data!.me.account.plan).toBe('ENTERPRISE');
    expect(read.data!.me.key.scopes).toContain('CALLS_WRITE');
    expect(read.data!.aiModels.filter((model) => model.default)).toHaveLength(1);

    const id = await createAgent('Hooked');
    const status = await gql<{ agent: { promptVersionStatus: { count: number; activeVersionId: null } } }>(
      'query ($id: ID!) { agent(id: $id) { promptVersionStatus { count activeVersionId currentDiffersFromActive } } }',
      { id },
    );
    expect(status.errors).toBeUndefined();
    expect(status.data!.agent.promptVersionStatus).toMatchObject({ count: 0, activeVersionId: null });

    // Without a webhook there is nothing to send to: the catalogue's code says so.
    const test = await gql('mutation ($id: ID!) { sendWebhookTest(agentId: $id) { id test } }', { id });
    expect(test.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT' });
    const bulk = await gql(
      `mutation ($id: ID!, $input: RedeliverFailedInput!) {
        redeliverFailedWebhooks(agentId: $id, input: $input) { queued hasMore }
      }`,
      { id, input: { from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' } },
    );
    expect(bulk.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['to'] });
    const theirs = await createAgent('Theirs', other.key);
    const redeliver = await gql(
      'mutation ($id: ID!, $delivery: ID!) { redeliverWebhook(agentId: $id, deliveryId: $delivery) { id } }',
      { id: theirs, delivery: randomUUID() },
    );
    expect(redeliver.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', reason: 'AGENT_NOT_FOUND' });
  });

  it('refuses queries over the complexity limit before running them, not deep introspection', async () => {
    const useful = await gql(
      '{ campaigns { items { agent { webhookDeliveries { items { attempts { attempt statusCode } } } } } } }',
    );
    expect(useful.errors, JSON.stringify(useful.errors)).toBeUndefined();
    // Introspection nests deeper than the limit (the standard query 14 levels): it is weighed by
    // what it returns instead (request-cost.test.ts), and answered.
    const deep = await gql(
      '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } }',
    );
    expect(deep.status).toBe(200);
    expect(deep.errors).toBeUndefined();
    // Pages within pages: 100 calls x 100 versions each.
    const wide = await gql(
      '{ calls(pageSize: 100) { items { agent { promptVersions(pageSize: 100) { items { id prompt label version } } } } } }',
    );
    expect(wide.status).toBe(400);
    expect(wide.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(wide.errors?.[0]?.message).toMatch(/the limit is/);
  });

  it('charges one budget per key across REST and GraphQL, answering RATE_LIMITED', async () => {
    const small = await createAccount(t, { name: 'Small', plan: 'enterprise', rateLimitPerMinute: 3 });
    expect((await api(t.url, 'GET', '/v1/agents', { key: small.key })).status).toBe(200);
    const statuses: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await gql('{ agents { total } }', {}, small.key);
      statuses.push(res.errors?.[0]?.extensions?.code as string | undefined);
      if (i === 2) {
        expect(res.status).toBe(429);
        expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      }
    }
    expect(statuses).toEqual([undefined, undefined, 'RATE_LIMITED']);
  });

  it('streams a call status sequence in order over graphql-ws, only to its own account', async () => {
    const agentId = await createAgent('Streamer');
    const mine = wsClient(`Bearer ${acme.key}`);
    const theirs = wsClient(`Bearer ${other.key}`);
    const query = `subscription ($agentId: ID) { callStatusChanged(agentId: $agentId) { id status agentId endedAt recordingUrl } }`;
    type Event = {
      callStatusChanged: { id: string; status: string; endedAt: string | null; recordingUrl: string | null };
    };
    await hubIdle();
    const seen = collect<Event>(mine, query, { agentId }, (got) =>
      got.some((e) => e.callStatusChanged.endedAt !== null),
    );
    // The other account passes Acme's agent id: it must still see nothing of Acme's.
    const spy = collect<Event>(theirs, query, { agentId }, () => false);
    const spyAll = collect<Event>(theirs, `subscription { callStatusChanged { id } }`, {}, () => false);
    await hubListening(3);

    const callId = await makeCall(agentId);
    await seen.done;
    expect(seen.errors).toEqual([]);
    expect(seen.got.map((e) => e.callStatusChanged.status)).toEqual([
      'INITIALIZING',
      'RINGING',
      'IN_PROGRESS',
      'COMPLETED',
    ]);
    expect(new Set(seen.got.map((e) => e.callStatusChanged.id))).toEqual(new Set([callId]));
    const last = seen.got.at(-1)!.callStatusChanged;
    expect(new URL(last.recordingUrl!).pathname).toBe(`/v1/recordings/${callId}.wav`);
    // The others listened before the call began; give a leak a quiet moment to show.
    await new Promise((r) => setTimeout(r, 300));
    expect(spy.got).toEqual([]);
    expect(spyAll.got).toEqual([]);
    for (const s of [seen, spy, spyAll]) s.stop();
  });

  it('refuses a socket without a valid key (4401) and a subscription to another account\u2019s call', async () => {
    const codes: number[] = [];
    await new Promise<void>((resolve) => {
      wsClient(undefined, (code) => {
        codes.push(code);
        resolve();
      });
    });
    await new Promise<void>((resolve) => {
      wsClient('Bearer vk_live_not_a_real_key_000000000000000', (code) => {
        codes.push(code);
        resolve();
      });
    });
    expect(codes).toEqual([4401, 4401]);

    const theirAgent = await createAgent('Private', other.key);
    const theirCall = await makeCall(theirAgent, '+14155550199', other.key);
    const mine = wsClient(`Bearer ${acme.key}`);
    const attempt = collect(
      mine,
      `subscription ($id: ID) { callStatusChanged(callId: $id) { id } }`,
      { id: theirCall },
      () => false,
    );
    await attempt.done;
    expect(attempt.got).toEqual([]);
    expect(JSON.stringify(attempt.errors)).toContain('NOT_FOUND');
  });

  it('applies the HTTP parse bounds over graphql-ws too, and the socket stays usable', async () => {
    const socket = wsClient(`Bearer ${acme.key}`);
    // Deep nesting overflows the parser's stack without the token cap.
    const deep = `subscription { callStatusChanged { ${'id '.repeat(4000)} } }`;
    const refused = collect(socket, deep, {}, () => false);
    await refused.done;
    expect(refused.got).toEqual([]);
    expect(JSON.stringify(refused.errors)).toMatch(/3000 tokens.*GRAPHQL_PARSE_FAILED/);
    const malformed = collect(socket, 'subscription { callStatusChanged { id ', {}, () => false);
    await malformed.done;
    expect(JSON.stringify(malformed.errors)).toMatch(/Syntax Error.*GRAPHQL_PARSE_FAILED/);
    // Still open: a query on the same socket answers.
    const query = collect<{ agents: { total: number } }>(
      socket,
      '{ agents { total } }',
      {},
      (got) => got.length > 0,
    );
    await query.done;
    expect(query.errors).toEqual([]);
    expect(query.got[0]!.agents.total).toBeGreaterThanOrEqual(0);
  });

  it(`delivers every event of the account to ${SUBSCRIBERS} concurrent subscribers`, async () => {
    const agentId = await createAgent('Fan-out');
    await hubIdle();
    const clients = Array.from({ length: SUBSCRIBERS }, () => wsClient(`Bearer ${acme.key}`));
    const query = `subscription ($agentId: ID) { callStatusChanged(agentId: $agentId) { id status } }`;
    type Event = { callStatusChanged: { id: string; status: string } };
    const CALLS = 2;
    const streams = clients.map((client) =>
      collect<Event>(
        client,
        query,
        { agentId },
        (got) => got.filter((e) => e.callStatusChanged.status === 'COMPLETED').length === CALLS,
      ),
    );
    // Every socket acknowledged and subscribed before the calls start.
    await hubListening(SUBSCRIBERS);
    const placed = [await makeCall(agentId, '+14155550301'), await makeCall(agentId, '+14155550302')];
    await Promise.all(streams.map((s) => s.done));
    for (const stream of streams) {
      expect(stream.errors).toEqual([]);
      for (const id of placed) {
        expect(
          stream.got.filter((e) => e.callStatusChanged.id === id).map((e) => e.callStatusChanged.status),
        ).toEqual(['INITIALIZING', 'RINGING', 'IN_PROGRESS', 'COMPLETED']);
      }
      stream.stop();
    }
  });

  it('follows a campaign to completion over campaignProgress, with its calls and contacts', async () => {
    const agentId = await createAgent('Campaigner');
    // Made due below, once the subscription listens (so it sees the campaign start).
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await gql<{ createCampaign: { id: string; status: string; counts: { total: number } } }>(
      `mutation ($input: CreateCampaignInput!) {
        createCampaign(input: $input, idempotencyKey: "gql-campaign-0001") { id status counts { total skipped } }
      }`,
      {
        input: {
          name: 'Spring',
          agentId,
          phoneNumber: FROM,
          maxConcurrentCalls: 2,
          startAt,
          contacts: [
            { phone: '+14155550401', name: 'Ada' },
            { phone: '+14155550402', name: 'Bo' },
            { phone: '+14155550403', name: 'Cy' },
            { phone: 'not a number', name: 'Dee' },
          ],
        },
      },
    );
    expect(created.errors, JSON.stringify(created.errors)).toBeUndefined();
    const campaign = created.data!.createCampaign;
    expect(campaign).toMatchObject({ status: 'SCHEDULED', counts: { total: 4 } });

    type Progress = { campaignProgress: { status: string; counts: Record<string, number> } };
    await hubIdle();
    const progress = collect<Progress>(
      wsClient(`Bearer ${acme.key}`),
      `subscription ($id: ID!) { campaignProgress(campaignId: $id) { status counts { total pending inProgress completed skipped } } }`,
      { id: campaign.id },
      (got) => got.some((e) => e.campaignProgress.status === 'COMPLETED'),
    );
    await hubListening(1);
    const theirs = collect<Progress>(
      wsClient(`Bearer ${other.key}`),
      `subscription ($id: ID!) { campaignProgress(campaignId: $id) { status } }`,
      { id: campaign.id },
      () => false,
    );
    // The dispatcher starts scheduled campaigns whose start_at has come.
    const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql`UPDATE campaign.campaigns SET start_at = now() WHERE id = ${campaign.id}`;
    } finally {
      await sql.end();
    }
    await progress.done;
    expect(progress.errors).toEqual([]);
    const statuses = progress.got.map((e) => e.campaignProgress.status);
    expect(statuses).toContain('RUNNING');
    expect(statuses.at(-1)).toBe('COMPLETED');
    expect(progress.got.at(-1)!.campaignProgress.counts).toMatchObject({
      total: 4,
      pending: 0,
      inProgress: 0,
      completed: 3,
      skipped: 1,
    });
    // Never more than the cap in flight, as every progress event reports.
    for (const e of progress.got) expect(e.campaignProgress.counts.inProgress).toBeLessThanOrEqual(2);
    await theirs.done;
    expect(theirs.got).toEqual([]);
    expect(JSON.stringify(theirs.errors)).toContain('NOT_FOUND');

    const read = await gql<{
      campaign: { agent: { name: string }; contacts: { items: { state: string; callIds: string[] }[] } };
    }>(
      `query ($id: ID!) { campaign(id: $id) { agent { name } contacts(pageSize: 10) { items { state skipReason callIds data } } } }`,
      { id: campaign.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data!.campaign.agent.name).toBe('Campaigner');
    expect(read.data!.campaign.contacts.items.map((c) => c.state).sort()).toEqual([
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
      'SKIPPED',
    ]);
    const calls = await gql<{ calls: { total: number } }>(
      `query ($id: ID) { calls(campaignId: $id) { total } }`,
      {
        id: campaign.id,
      },
    );
    expect(calls.data!.calls.total).toBe(3);
    const cancel = await gql(`mutation ($id: ID!) { cancelCampaign(id: $id) { status } }`, {
      id: campaign.id,
    });
    expect(cancel.errors?.[0]?.extensions?.code).toBe('CONFLICT');
  });

  it('serves GraphiQL from node_modules to a browser', async () => {
    const page = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/graphql/assets/graphiql.js');
    for (const asset of ['graphiql.js', 'graphiql.css', 'react.js', 'react-dom.js']) {
      const res = await fetch(`${t.url}/graphql/assets/${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });
});
