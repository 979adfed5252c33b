import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createTRPCClient, httpSubscriptionLink, type TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import { infraModes } from '@voice/shared/testing';
import { EventSource } from 'eventsource';
import {
  buildClientSchema,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  parse,
  printSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { AppRouter } from '../../../gateway/src/trpc/router';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope } from '../support/http';
import { type KeySocket, paramsSocket, runOnce } from './graphql-ws-support';
import { follow as followed } from './trpc-support';

/** Every option of graphql-js's standard query: what codegen, graphql-inspector and Rover can ask. */
const FULL = {
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
};
const FROM = '+14155550100';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/**
 * Every type, field, argument and enum value of a schema (GraphQL's own introspection types and
 * built-in scalars aside) that has no description, by its schema coordinate.
 */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const check = (coordinate: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(coordinate);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isEnumType(type))
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of 'args' in field ? field.args : [])
          check(`${type.name}.${field.name}(${arg.name}:)`, arg.description);
      }
  }
  return missing;
}

/** A client schema from an introspection answer: throws unless it is complete and valid. */
function clientSchema(data: unknown) {
  const schema = buildClientSchema(data as IntrospectionQuery);
  expect(Object.keys(schema.getQueryType()!.getFields())).toContain('calls');
  expect(Object.keys(schema.getSubscriptionType()!.getFields())).toContain('callStatusChanged');
  return schema;
}

describe.each(infraModes())('standard GraphQL and tRPC tooling (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  const sockets: KeySocket[] = [];

  const socket = (connectionParams: Record<string, unknown>) => {
    const opened = paramsSocket(t.url, connectionParams);
    sockets.push(opened);
    return opened;
  };

  async function createAgent(): Promise<string> {
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: { name: 'Tooling', start_flow: 'Hi, this is Tooling.', end_flow: 'Goodbye!' },
    });
    expect(agent.status).toBe(201);
    return agent.body.data.id;
  }

  async function placeCall(agentId: string): Promise<string> {
    const call = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/call', {
      key: acme.key,
      body: { agent_id: agentId, source_number: FROM, phone_number: '+14155550123' },
    });
    expect(call.status).toBe(201);
    return call.body.data.id;
  }

  /** Listeners on the gateway's hub: a subscription is live once it counts there. */
  const listening = (n: number) =>
    vi.waitFor(() => expect(t.platform.gateway!.deps.live.listenerCount).toBe(n), {
      timeout: 30_000,
      interval: 20,
    });

  beforeAll(async () => {
    t = await startTestPlatform(mode, { captureLogs: true, config: { SIM_TIME_SCALE: 0.002 } });
    acme = await createAccount(t, { name: 'Acme', plan: 'enterprise', rateLimitPerMinute: 2000 });
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await Promise.all(sockets.map((s) => s.client.dispose()));
    await t?.stop();
  });

  it('answers the standard introspection query without a key over HTTP, and over graphql-ws', async () => {
    for (const options of [undefined, FULL]) {
      const query = getIntrospectionQuery(options);
      const res = await api<GraphQLBody>(t.url, 'POST', '/graphql', {
        body: { query, operationName: 'IntrospectionQuery' },
      });
      expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
      expect(res.body.errors).toBeUndefined();
      clientSchema(res.body.data);
    }
    const full = await api<GraphQLBody>(t.url, 'POST', '/graphql', {
      body: { query: getIntrospectionQuery(FULL) },
    });
    const overHttp = clientSchema(full.body.data);
    // The descriptions came too.
    expect(overHttp.getSubscriptionType()!.getFields().callStatusChanged!.description).toMatch(/transitions/);
    // A socket needs a key (without one it closes with 4401, as before); then it answers alike.
    const open = socket({ Authorization: `Bearer ${acme.key}` });
    await open.ready;
    expect(open.codes).toEqual([]);
    const overSocket = await runOnce(open.client, getIntrospectionQuery(FULL));
    expect(overSocket.errors).toBeUndefined();
    expect(printSchema(clientSchema(overSocket.data))).toBe(printSchema(overHttp));
  });

  it('describes every type, field, argument and enum value it serves', async () => {
    const res = await api<GraphQLBody>(t.url, 'POST', '/graphql', {
      body: { query: getIntrospectionQuery(FULL) },
    });
    expect(res.body.errors).toBeUndefined();
    const schema = clientSchema(res.body.data);
    // Some of each kind are there to check (a walk that found none would pass on any schema).
    expect(Object.keys(schema.getTypeMap()).length).toBeGreaterThan(50);
    expect(undescribed(schema)).toEqual([]);
  });

  it('reads the key of a graphql-ws connection_init in any case, at the top level or under headers', async () => {
    const bearer = `Bearer ${acme.key}`;
    const accepted = [
      { authorization: bearer },
      { Authorization: bearer },
      { AUTHORIZATION: bearer },
      { headers: { Authorization: bearer } },
      { headers: { authorization: bearer } },
    ];
    for (const params of accepted) {
      const open = socket(params);
      await open.ready;
      expect(open.codes, JSON.stringify(params)).toEqual([]);
      const agents = await runOnce(open.client, '{ agents { total } }');
      expect(agents.errors, JSON.stringify(params)).toBeUndefined();
      expect(agents.data).toMatchObject({ agents: { total: expect.any(Number) } });
    }
    const refused = [
      {},
      { Authorization: 'Bearer vk_live_not_a_real_key_000000000000000' },
      { headers: { Authorization: 'vk_without_bearer' } },
      // Twice, even alike: one key, once.
      { authorization: bearer, headers: { Authorization: bearer } },
      { Authorization: 42 },
    ];
    for (const params of refused) {
      const closed = socket(params);
      await closed.ready;
      expect(closed.codes, JSON.stringify(params)).toEqual([4401]);
    }
  });

  it('serves a GraphiQL that loads the schema without a key and runs subscriptions with one', async () => {
    const page = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/your API key/i);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(
      expect.arrayContaining(['/graphql/assets/graphiql.js', '/graphql/assets/graphiql.css']),
    );
    for (const asset of assets) {
      const res = await fetch(new URL(asset, t.url));
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(
        asset.endsWith('.css') ? /text\/css/ : /javascript/,
      );
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(1000);
    }
    // No CDN: every script and style is the gateway's own.
    expect(assets.every((asset) => asset.startsWith('/'))).toBe(true);

    // The page's fetcher, built as its script builds it, with GraphiQL's own fetcher library.
    const config = JSON.parse(
      /<script id="graphiql-config" type="application\/json">([^<]*)<\/script>/.exec(html)![1]!,
    ) as { url: string; subscriptionPath: string; keyStorage: string };
    expect(config.keyStorage).toBeTruthy();
    // A browser has WebSocket; Node 20 has none without a flag.
    vi.stubGlobal('WebSocket', WebSocket);
    const socketUrl = new URL(config.subscriptionPath, t.url);
    socketUrl.protocol = 'ws:';
    const fetcherWith = (key: string | undefined) => {
      const auth: Record<string, string> = key ? { Authorization: `Bearer ${key}` } : {};
      return createGraphiQLFetcher({
        fetch,
        url: new URL(config.url, t.url).href,
        subscriptionUrl: socketUrl.href,
        headers: auth,
        wsConnectionParams: auth,
      });
    };
    // What GraphiQL asks when it opens: no key stored yet.
    const introspection = (await fetcherWith(undefined)(
      { query: getIntrospectionQuery(), operationName: 'IntrospectionQuery' },
      {},
    )) as GraphQLBody;
    expect(introspection.errors).toBeUndefined();
    clientSchema(introspection.data);

    // The key typed once: queries over HTTP, subscriptions over graphql-ws.
    const withKey = fetcherWith(acme.key);
    const read = (await withKey({ query: '{ agents { total } }', operationName: null }, {})) as GraphQLBody;
    expect(read.errors).toBeUndefined();
    const subscription = 'subscription Follow { callStatusChanged { id status } }';
    const stream = (await withKey(
      { query: subscription, operationName: 'Follow' },
      { documentAST: parse(subscription) },
    )) as AsyncIterableIterator<GraphQLBody>;
    await listening(0);
    const first = stream.next();
    await listening(1);
    const callId = await placeCall(await createAgent());
    const event = await first;
    expect(event.value.errors).toBeUndefined();
    expect(event.value.data).toMatchObject({ callStatusChanged: { id: callId } });
    await stream.return?.();
  });

  it("accepts tRPC's own connectionParams for SSE subscriptions, and never logs the key", async () => {
    type Call = inferRouterOutputs<AppRouter>['calls']['get'];
    const follow = (connectionParams: Record<string, string>, agentId: string) => {
      // The `eventsource` package as a browser's EventSource: no way to send a header.
      const client = createTRPCClient<AppRouter>({
        links: [httpSubscriptionLink({ url: `${t.url}/trpc`, EventSource, connectionParams })],
      });
      return followed<Call>(
        (handlers) => client.calls.onStatus.subscribe({ agent_id: agentId }, handlers),
        (got) => got.some((event) => event.data.ended_at !== null),
      );
    };
    const agentId = await createAgent();
    await listening(0);
    const upper = follow({ Authorization: `Bearer ${acme.key}` }, agentId);
    const lower = follow({ authorization: `Bearer ${acme.key}` }, agentId);
    const bad = follow({ Authorization: 'Bearer vk_live_not_a_real_key_000000000000000' }, agentId);
    await Promise.all([upper.started, lower.started, bad.done]);
    await listening(2);
    expect((bad.errors[0] as TRPCClientError<AppRouter>).data?.code).toBe('UNAUTHORIZED');
    await placeCall(agentId);
    await Promise.all([upper.done, lower.done]);
    for (const stream of [upper, lower]) {
      expect(stream.errors).toEqual([]);
      expect(stream.got.map((event) => event.data.status)).toEqual([
        'initializing',
        'ringing',
        'in_progress',
        'completed',
      ]);
      stream.stop();
    }
    // The key once: in the header or in connectionParams, not both.
    const params = encodeURIComponent(JSON.stringify({ authorization: `Bearer ${acme.key}` }));
    const twice = await fetch(`${t.url}/trpc/agents.list?connectionParams=${params}`, {
      headers: { authorization: `Bearer ${acme.key}` },
    });
    expect(twice.status).toBe(401);
    // The access log keeps the URL, without the key.
    await vi.waitFor(() =>
      expect(
        t.logs.some((line) =>
          String((line.req as { url?: string } | undefined)?.url).includes('connectionParams=%5Bredacted%5D'),
        ),
      ).toBe(true),
    );
    expect(JSON.stringify(t.logs)).not.toContain(acme.key);
  });
});
