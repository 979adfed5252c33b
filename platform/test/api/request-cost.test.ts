import { infraModes } from '@voice/shared/testing';
import {
  executeSync,
  getIntrospectionQuery,
  parse,
  buildSchema as schemaFromSdl,
  specifiedRules,
  validate,
} from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { IntrospectionCache } from '../../../gateway/src/graphql/introspection';
import { MAX_DEPTH, queryLimits } from '../../../gateway/src/graphql/limits';
import { buildSchema } from '../../../gateway/src/graphql/schema';
import { createAccount, createKey } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { runOnce } from './graphql-ws-support';
import { windowWithAtLeast } from './rate-limit-support';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** `n` aliases of one field: what one request runs `n` times. */
const aliases = (n: number, field: string) =>
  Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');
/** What the attack run sent: each alias walks every type's fields' types' fields. */
const HEAVY_INTROSPECTION = '__schema { types { fields { type { fields { name } } } } }';
const AGENT_INPUT = { name: 'Bulk', startFlow: 'Hi, this is Bulk.', endFlow: 'Goodbye!' };

describe('introspection answers', () => {
  const schema = buildSchema();

  it('are graphql-js answers, executed once per field whatever the alias', () => {
    const cache = new IntrospectionCache(schema);
    const document = parse(
      `{ __typename ${aliases(3, '__schema { types { name kind fields { name } } }')} }`,
    );
    const answer = cache.answer(document, undefined, {});
    expect(answer).toEqual(executeSync({ schema, document }));
    // One execution serves every alias, and the next request.
    expect(answer!.data!.a1).toBe(answer!.data!.a0);
    expect(
      cache.answer(parse('{ b: __schema { types { name kind fields { name } } } }'), undefined, {})!.data!.b,
    ).toBe(answer!.data!.a0);
    const byVariable = parse('query ($n: String!) { __type(name: $n) { name fields { name } } }');
    expect(cache.answer(byVariable, undefined, { n: 'Agent' })).toEqual(
      executeSync({ schema, document: byVariable, variableValues: { n: 'Agent' } }),
    );
    // Anything else is the executor's: other fields, and directives that decide what runs.
    expect(
      cache.answer(parse('{ __schema { queryType { name } } voices { id } }'), undefined, {}),
    ).toBeUndefined();
    expect(
      cache.answer(parse('{ ... @skip(if: true) { __schema { queryType { name } } } }'), undefined, {}),
    ).toBeUndefined();
  });
});

describe('the depth limit', () => {
  /** `next { next { ... id } }`, nested `levels` deep. */
  const chain = (levels: number) => `{ ${'next { '.repeat(levels)}id${' }'.repeat(levels)} }`;

  it('refuses a query nested deeper than the limit, but not introspection, weighed instead', () => {
    // Nothing in the API's schema nests that deep: a schema that nests without end shows the rule.
    const nesting = schemaFromSdl('type Query { next: Node } type Node { next: Node id: ID }');
    expect(validate(nesting, parse(chain(MAX_DEPTH)), [queryLimits])).toEqual([]);
    const refused = validate(nesting, parse(chain(MAX_DEPTH + 1)), [queryLimits]);
    expect(refused.map((e) => e.message)).toEqual([
      `Query is nested ${MAX_DEPTH + 1} levels deep; the limit is ${MAX_DEPTH}`,
    ]);
    // The standard introspection query nests 14 levels.
    const schema = buildSchema();
    const standard = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    expect(validate(schema, parse(standard), [...specifiedRules, queryLimits])).toEqual([]);
    const deepest = `{ __schema { types { fields { type ${'{ ofType '.repeat(40)}{ name }${' }'.repeat(40)} } } } }`;
    expect(validate(schema, parse(deepest), [...specifiedRules, queryLimits])).toEqual([]);
    // Weighed by what it returns, heavy introspection is still refused.
    const heavy = validate(schema, parse(`{ ${aliases(50, HEAVY_INTROSPECTION)} }`), [queryLimits]);
    expect(heavy.map((e) => e.message)).toEqual([expect.stringMatching(/could return about \d+ values/)]);
  });
});

describe.each(infraModes())('what a request costs: GraphQL root fields, tRPC batch calls (%s)', (mode) => {
  let t: TestPlatform;
  const sockets: Client[] = [];
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await t?.stop();
  });

  async function gql(key: string | undefined, query: string, variables: Record<string, unknown> = {}) {
    const res = await api<GraphQLBody>(t.url, 'POST', '/graphql', { key, body: { query, variables } });
    return {
      status: res.status,
      remaining: Number(res.headers.get('x-ratelimit-remaining')),
      retryAfter: Number(res.headers.get('retry-after')),
      body: res.body,
      size: res.text.length,
    };
  }
  const remainingOf = async (key?: string) =>
    Number(
      (await api(t.url, 'GET', key ? '/v1/me' : '/v1/voices', { key })).headers.get('x-ratelimit-remaining'),
    );
  const agentCount = async (key: string) =>
    (await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/agents', { key })).body.data.total;

  /** A graphql-ws socket: open (acknowledged) or the code it was closed with. */
  function socket(authorization: string | undefined): Promise<{ client: Client; closed?: number }> {
    return new Promise((resolve) => {
      const client = createClient({
        url: `${t.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: authorization ? { authorization } : {},
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => {},
        on: {
          connected: () => resolve({ client }),
          closed: (event) => resolve({ client, closed: (event as { code: number }).code }),
        },
      });
      sockets.push(client);
    });
  }
  const run = (client: Client, query: string) => runOnce(client, query) as Promise<GraphQLBody>;

  it('charges every root field an operation runs: X-RateLimit-Remaining falls by the charge', async () => {
    await windowWithAtLeast(15);
    const { key } = await createAccount(t, { plan: 'free' });
    const five = await gql(key, `{ ${aliases(5, 'voices { id }')} }`);
    expect(five.body.errors).toBeUndefined();
    expect(five.status).toBe(200);
    expect(five.remaining).toBe(55);
    // `__typename` is free, and a field @skip leaves out does not run.
    const two = await gql(
      key,
      'query ($no: Boolean!) { voices { id } languages { code } __typename industries @skip(if: $no) { id } }',
      { no: true },
    );
    expect(two.body.data).not.toHaveProperty('industries');
    expect(two.remaining).toBe(53);
    // A fragment's root fields count where it is spread.
    const spread = await gql(
      key,
      '{ ...F } fragment F on Query { a: voices { id } b: voices { id } languages { code } }',
    );
    expect(spread.remaining).toBe(50);
    // One budget with REST.
    expect(await remainingOf(key)).toBe(49);
  });

  it('refuses a request that costs more than is left as a whole: nothing runs, nothing more is spent', async () => {
    await windowWithAtLeast(15);
    const account = await createAccount(t, { plan: 'enterprise', rateLimitPerMinute: 20 });
    const reader = await createKey(t, account.accountId);
    expect((await gql(account.key, `{ ${aliases(15, 'voices { id }')} }`)).remaining).toBe(5);
    const eight = await gql(
      account.key,
      `mutation ($input: CreateAgentInput!) { ${aliases(8, 'createAgent(input: $input) { id }')} }`,
      { input: AGENT_INPUT },
    );
    expect(eight.status).toBe(429);
    expect(eight.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(eight.body.errors?.[0]?.message).toMatch(/counts as 8 requests \(one per root field\)/);
    expect(eight.body.data ?? null).toBeNull();
    expect(eight.retryAfter).toBeGreaterThanOrEqual(1);
    // Only the request's own first place was spent.
    expect(eight.remaining).toBe(4);
    expect(await agentCount(reader)).toBe(0);
    // What is left still serves a request that fits it exactly.
    const four = await gql(
      account.key,
      `mutation ($input: CreateAgentInput!) { ${aliases(4, 'createAgent(input: $input) { id }')} }`,
      { input: AGENT_INPUT },
    );
    expect(four.body.errors).toBeUndefined();
    expect(four.remaining).toBe(0);
    expect(await agentCount(reader)).toBe(4);
    expect((await gql(account.key, '{ voices { id } }')).status).toBe(429);
  });

  it('bounds a mutation at 10 root fields: 240 aliased makeCall place no call', async () => {
    const account = await createAccount(t, { plan: 'pro' });
    const agent = await gql(
      account.key,
      'mutation ($input: CreateAgentInput!) { createAgent(input: $input) { id } }',
      {
        input: AGENT_INPUT,
      },
    );
    const input = {
      agentId: (agent.body.data!.createAgent as { id: string }).id,
      sourceNumber: '+14155550100',
      phoneNumber: '+14155550123',
    };
    for (const n of [240, 11]) {
      const many = await gql(
        account.key,
        `mutation ($input: MakeCallInput!) { ${aliases(n, 'makeCall(input: $input) { id }')} }`,
        { input },
      );
      expect(many.status).toBe(400);
      expect(many.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      // Past the alias limit, that is the refusal; below it, the mutation limit.
      expect(many.body.errors?.[0]?.message).toMatch(
        n > 50
          ? /The document has 240 aliases; the limit is 50/
          : /The mutation has 11 root fields; the limit is 10/,
      );
    }
    const calls = await api<Envelope<{ total: number }>>(t.url, 'GET', '/v1/calls', { key: account.key });
    expect(calls.body.data.total).toBe(0);
    const ten = await gql(
      account.key,
      `mutation ($input: CreateAgentInput!) { ${aliases(10, 'createAgent(input: $input) { id }')} }`,
      { input: AGENT_INPUT },
    );
    expect(ten.body.errors).toBeUndefined();
    expect(await agentCount(account.key)).toBe(11);
  });

  it('refuses the introspection alias bomb before it runs, and weighs introspection by what it returns', async () => {
    await windowWithAtLeast(10);
    const bomb = await gql(undefined, `{ ${aliases(160, HEAVY_INTROSPECTION)} }`);
    expect(bomb.status).toBe(400);
    expect(bomb.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(bomb.body.errors?.[0]?.message).toMatch(/160 aliases; the limit is 50/);
    expect(bomb.size).toBeLessThan(2000);
    // Within the alias limit, each alias counts what it returns: fifty of them are too many.
    const fifty = await gql(undefined, `{ ${aliases(50, HEAVY_INTROSPECTION)} }`);
    expect(fifty.status).toBe(400);
    expect(fifty.body.errors?.[0]?.message).toMatch(/could return about \d+ values; the limit is 20000/);
    // Two are answered, alike, and charged to the client IP as two requests.
    const before = await remainingOf();
    const two = await gql(undefined, `{ ${aliases(2, HEAVY_INTROSPECTION)} }`);
    expect(two.status).toBe(200);
    expect(two.body.data!.a1).toEqual(two.body.data!.a0);
    expect(two.remaining).toBe(before - 2);
    // And on a socket.
    const { key } = await createAccount(t, { plan: 'pro' });
    const open = await socket(`Bearer ${key}`);
    const overSocket = await run(open.client, `{ ${aliases(160, HEAVY_INTROSPECTION)} }`);
    expect(overSocket.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(overSocket.errors?.[0]?.message).toMatch(/160 aliases; the limit is 50/);
  });

  it('charges graphql-ws operations per root field, and every connection_init', async () => {
    await windowWithAtLeast(15);
    const { key } = await createAccount(t, { plan: 'enterprise', rateLimitPerMinute: 10 });
    const open = await socket(`Bearer ${key}`);
    expect(open.closed).toBeUndefined();
    const four = await run(open.client, `{ ${aliases(4, 'voices { id }')} }`);
    expect(four.errors).toBeUndefined();
    // connection_init 1, the operation 4, this read 1.
    expect(await remainingOf(key)).toBe(4);
    const five = await run(open.client, `{ ${aliases(5, 'voices { id }')} }`);
    expect(five.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(await remainingOf(key)).toBe(2);
    // Two more connections fit; the next connection_init is refused.
    expect((await socket(`Bearer ${key}`)).closed).toBeUndefined();
    expect((await socket(`Bearer ${key}`)).closed).toBeUndefined();
    expect((await socket(`Bearer ${key}`)).closed).toBe(4429);
    // Without a key, the client IP pays for it (the upgrade request and the connection_init).
    const before = await remainingOf();
    expect((await socket(undefined)).closed).toBe(4401);
    expect(await remainingOf()).toBe(before - 3);
  });

  it('charges every call of a tRPC batch, all or nothing', async () => {
    await windowWithAtLeast(15);
    const { key, accountId } = await createAccount(t, { plan: 'enterprise', rateLimitPerMinute: 20 });
    const reader = await createKey(t, accountId);
    const auth = { authorization: `Bearer ${key}` };
    const reads = await fetch(
      `${t.url}/trpc/${Array(5).fill('discovery.voices').join(',')}?batch=1&input={}`,
      {
        headers: auth,
      },
    );
    expect(reads.status).toBe(200);
    expect(reads.headers.get('x-ratelimit-remaining')).toBe('15');
    const create = (n: number) =>
      fetch(`${t.url}/trpc/${Array(n).fill('agents.create').join(',')}?batch=1`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(
          Object.fromEntries(
            Array.from({ length: n }, (_, i) => [i, { name: 'Batch', start_flow: 'Hi.', end_flow: 'Bye.' }]),
          ),
        ),
      });
    expect((await create(10)).headers.get('x-ratelimit-remaining')).toBe('5');
    const refused = await create(8);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const parts = (await refused.json()) as { error?: { data: { code: string } } }[];
    expect(parts.map((p) => p.error?.data.code)).toEqual(Array(8).fill('TOO_MANY_REQUESTS'));
    // None of the refused batch ran: 10 agents, then the 4 that fit exactly.
    const fits = await create(4);
    expect(fits.status).toBe(200);
    expect(fits.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await agentCount(reader)).toBe(14);
  });
});
