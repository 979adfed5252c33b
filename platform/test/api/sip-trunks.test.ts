import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceClient } from '../../../client/src/index';
import { createAccount, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';
import { failure } from './trpc-support';

interface Trunk {
  id: string;
  name: string;
  uri: string;
  username: string | null;
  has_password: boolean;
  numbers: string[];
  is_default: boolean;
  max_concurrent_calls: number | null;
  calls_per_second: number | null;
  ring_timeout_seconds: number;
  codecs: string[];
}
type Issue = { loc: (string | number)[]; msg: string; type: string };
interface GraphQLResponse<T> {
  data?: T;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** Passwords the test sends: none may come back in an answer or appear in a log line. */
const PASSWORDS = ['rest-secret-7Qz1', 'rest-secret-changed-9Kp2', 'graphql-secret-3Vb8', 'trpc-secret-5Hx4'];
const TRUNK_FIELDS =
  'id name uri username hasPassword numbers isDefault maxConcurrentCalls callsPerSecond ringTimeoutSeconds codecs createdAt updatedAt';

describe.each(infraModes())('SIP trunks at /v1/sip-trunks, GraphQL and tRPC (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  // Each test uses numbers of its own: a number belongs to at most one trunk of an account.
  let nextNumber = 0;
  const number = () => `+1415555${String(2000 + nextNumber++).padStart(4, '0')}`;

  beforeAll(async () => {
    t = await startTestPlatform(mode, { captureLogs: true });
    acme = await createAccount(t, { name: 'Acme' });
    other = await createAccount(t, { name: 'Other' });
  });
  afterAll(async () => t?.stop());

  const rest = <T = Trunk>(method: string, path: string, body?: unknown, key = acme.key) =>
    api<Envelope<T> & ErrorEnvelope>(t.url, method, path, { key, ...(body === undefined ? {} : { body }) });
  const create = async (body: Record<string, unknown> = {}, key = acme.key) => {
    const res = await rest(
      'POST',
      '/v1/sip-trunks',
      { name: 'Carrier', uri: 'sip:127.0.0.1:5070', ...body },
      key,
    );
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const issues = (res: { body: ErrorEnvelope }) => res.body.detail as Issue[];
  async function gql<T>(query: string, variables: Record<string, unknown> = {}, key = acme.key) {
    const res = await api<GraphQLResponse<T>>(t.url, 'POST', '/graphql', { key, body: { query, variables } });
    return { status: res.status, text: res.text, ...res.body };
  }
  const clientFor = (apiKey: string) => createVoiceClient({ url: t.url, apiKey });

  it('creates, lists, reads, changes and deletes a trunk over REST, never answering its password', async () => {
    const [first, second] = [number(), number()];
    const created = await rest('POST', '/v1/sip-trunks', {
      name: 'Main carrier',
      uri: 'sip:trunk.example.com:5060;transport=tcp',
      username: 'acme',
      password: PASSWORDS[0],
      numbers: [first],
      max_concurrent_calls: 20,
      calls_per_second: 5,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain(PASSWORDS[0]);
    const trunk = created.body.data;
    expect(trunk).not.toHaveProperty('password');
    expect(trunk).toMatchObject({
      name: 'Main carrier',
      uri: 'sip:trunk.example.com:5060;transport=tcp',
      username: 'acme',
      has_password: true,
      numbers: [first],
      is_default: false,
      max_concurrent_calls: 20,
      calls_per_second: 5,
      ring_timeout_seconds: 30,
      codecs: ['PCMU', 'PCMA'],
    });

    const read = await rest('GET', `/v1/sip-trunks/${trunk.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(trunk);
    const list = await rest<{ items: Trunk[]; total: number }>('GET', '/v1/sip-trunks?page_size=100');
    expect(list.status).toBe(200);
    expect(list.body.data.items.map((item) => item.id)).toContain(trunk.id);
    expect(list.text).not.toContain(PASSWORDS[0]);

    // An omitted password is kept; a new one replaces it, unseen; null removes it.
    const renamed = await rest('PATCH', `/v1/sip-trunks/${trunk.id}`, {
      name: 'Renamed',
      numbers: [first, second],
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.data).toMatchObject({
      name: 'Renamed',
      numbers: [first, second],
      has_password: true,
    });
    const newPassword = await rest('PATCH', `/v1/sip-trunks/${trunk.id}`, { password: PASSWORDS[1] });
    expect(newPassword.status).toBe(200);
    expect(newPassword.text).not.toContain(PASSWORDS[1]);
    expect(newPassword.body.data.has_password).toBe(true);
    const removed = await rest('PATCH', `/v1/sip-trunks/${trunk.id}`, {
      password: null,
      max_concurrent_calls: null,
    });
    expect(removed.body.data).toMatchObject({
      has_password: false,
      max_concurrent_calls: null,
      username: 'acme',
    });

    const deleted = await rest('DELETE', `/v1/sip-trunks/${trunk.id}`);
    expect(deleted.status).toBe(204);
    expect((await rest('GET', `/v1/sip-trunks/${trunk.id}`)).status).toBe(404);
    expect((await rest('DELETE', `/v1/sip-trunks/${trunk.id}`)).status).toBe(404);
  });

  it('answers another account\u2019s trunk exactly like a missing one, and never lists it', async () => {
    const theirs = await create({ name: 'Theirs', numbers: [number()] }, other.key);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'Taken over' }], ['DELETE']] as const) {
      const res = await rest(method, `/v1/sip-trunks/${theirs.id}`, body);
      expect(res.status, `${method}: ${res.text}`).toBe(404);
      expect(res.body.detail).toBe('SIP trunk not found');
    }
    const mine = await rest<{ items: Trunk[] }>('GET', '/v1/sip-trunks?page_size=100');
    expect(mine.body.data.items.map((item) => item.id)).not.toContain(theirs.id);
    // Still there, unchanged, for its own account.
    expect((await rest('GET', `/v1/sip-trunks/${theirs.id}`, undefined, other.key)).body.data.name).toBe(
      'Theirs',
    );
  });

  it('refuses a malformed URI with a 422 saying what is wrong with it', async () => {
    const cases: [string, RegExp][] = [
      ['http://trunk.example.com', /must be a sip: URI/],
      ['sips:trunk.example.com', /sips: .* not supported/],
      ['sip:alice:pw@trunk.example.com', /user or password/],
      ['sip:trunk.example.com:99999', /port must be a number from 1 to 65535/],
      ['sip:trunk.example.com;transport=tls', /transport must be udp or tcp/],
      ['sip:trunk.example.com;lr', /only parameter is ;transport/],
      ['sip:bad_host!', /not a valid host name/],
    ];
    for (const [uri, message] of cases) {
      const res = await rest('POST', '/v1/sip-trunks', { name: 'Bad', uri });
      expect(res.status, uri).toBe(422);
      expect(issues(res), uri).toEqual([
        { loc: ['body', 'uri'], msg: expect.stringMatching(message), type: 'custom' },
      ]);
    }
    const trunk = await create();
    const patched = await rest('PATCH', `/v1/sip-trunks/${trunk.id}`, { uri: 'sip:' });
    expect(patched.status).toBe(422);
    expect(issues(patched)[0]).toMatchObject({
      loc: ['body', 'uri'],
      msg: expect.stringMatching(/must name a host/),
    });
    // A password without a username could never be used.
    const lonely = await rest('POST', '/v1/sip-trunks', {
      name: 'No user',
      uri: 'sip:a.example.com',
      password: 'x1',
    });
    expect(lonely.status).toBe(422);
    expect(issues(lonely)[0]?.loc).toEqual(['body', 'username']);
  });

  it('refuses a number another trunk of the account lists (422), but not one another account lists', async () => {
    const shared = number();
    const holder = await create({ name: 'Holder', numbers: [shared] });
    const taken = await rest('POST', '/v1/sip-trunks', {
      name: 'Second',
      uri: 'sip:b.example.com',
      numbers: [number(), shared],
    });
    expect(taken.status).toBe(422);
    expect(issues(taken)).toEqual([
      {
        loc: ['body', 'numbers', 1],
        msg: `${shared} already belongs to trunk ${holder.id}`,
        type: 'number_taken',
      },
    ]);
    const second = await create({ name: 'Second' });
    const moved = await rest('PATCH', `/v1/sip-trunks/${second.id}`, { numbers: [shared] });
    expect(moved.status).toBe(422);
    expect(issues(moved)[0]).toMatchObject({ loc: ['body', 'numbers', 0], type: 'number_taken' });
    // Another account's trunks are another numbering.
    await create({ name: 'Elsewhere', numbers: [shared] }, other.key);
  });

  it('keeps one default trunk per account: a new default takes the place of the old one', async () => {
    const first = await create({ name: 'First default', is_default: true });
    expect(first.is_default).toBe(true);
    const second = await create({ name: 'Second default', is_default: true });
    expect(second.is_default).toBe(true);
    const isDefault = async (id: string) => (await rest('GET', `/v1/sip-trunks/${id}`)).body.data.is_default;
    expect(await isDefault(first.id)).toBe(false);
    const back = await rest('PATCH', `/v1/sip-trunks/${first.id}`, { is_default: true });
    expect(back.body.data.is_default).toBe(true);
    expect(await isDefault(second.id)).toBe(false);
    // Another account's default is its own.
    const theirs = await create({ name: 'Their default', is_default: true }, other.key);
    expect(await isDefault(first.id)).toBe(true);
    expect(theirs.is_default).toBe(true);
  });

  it('gives full-access keys the trunk scopes and refuses keys without them (403)', async () => {
    const me = await rest<{ key: { scopes: string[] } }>('GET', '/v1/me');
    expect(me.body.data.key.scopes).toEqual(expect.arrayContaining(['trunks:read', 'trunks:write']));
    const readOnly = await createKey(t, acme.accountId, ['trunks:read']);
    const callsOnly = await createKey(t, acme.accountId, ['calls:read', 'calls:write']);
    const trunk = await create();

    expect((await rest('GET', '/v1/sip-trunks', undefined, readOnly)).status).toBe(200);
    expect((await rest('GET', `/v1/sip-trunks/${trunk.id}`, undefined, readOnly)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v1/sip-trunks', { name: 'Nope', uri: 'sip:c.example.com' }],
      ['PATCH', `/v1/sip-trunks/${trunk.id}`, { name: 'Nope' }],
      ['DELETE', `/v1/sip-trunks/${trunk.id}`, undefined],
    ] as const) {
      const res = await rest(method, path, body, readOnly);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toMatch(/trunks:write/);
    }
    const refused = await rest('GET', '/v1/sip-trunks', undefined, callsOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/trunks:read/);
    expect((await rest('GET', `/v1/sip-trunks/${trunk.id}`)).body.data.name).toBe('Carrier');

    const gqlRefused = await gql(`mutation { deleteSipTrunk(id: "${trunk.id}") }`, {}, readOnly);
    expect(gqlRefused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const trpcRefused = await failure(clientFor(readOnly).sipTrunks.delete.mutate({ id: trunk.id }));
    expect(trpcRefused.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    expect(await failure(clientFor(callsOnly).sipTrunks.list.query({}))).toMatchObject({
      data: { code: 'FORBIDDEN' },
    });
  });

  it('runs the same operations over GraphQL, where a trunk has no password field', async () => {
    const mine = number();
    const created = await gql<{ createSipTrunk: Record<string, unknown> }>(
      `mutation ($input: CreateSipTrunkInput!) { createSipTrunk(input: $input) { ${TRUNK_FIELDS} } }`,
      {
        input: {
          name: 'Over GraphQL',
          uri: 'sip:[2001:db8::1]:5080;transport=udp',
          username: 'gql',
          password: PASSWORDS[2],
          numbers: [mine],
          codecs: ['PCMA'],
          ringTimeoutSeconds: 45,
          maxConcurrentCalls: null,
        },
      },
    );
    expect(created.errors, created.text).toBeUndefined();
    const trunk = created.data!.createSipTrunk;
    expect(trunk).toMatchObject({
      name: 'Over GraphQL',
      hasPassword: true,
      numbers: [mine],
      codecs: ['PCMA'],
      ringTimeoutSeconds: 45,
      maxConcurrentCalls: null,
      isDefault: false,
    });
    const id = trunk.id as string;
    // The password is write-only: asking for it is a document the schema refuses.
    const asked = await gql(`query ($id: ID!) { sipTrunk(id: $id) { password } }`, { id });
    expect(asked.errors?.[0]?.message).toMatch(/Cannot query field "password"/);

    const read = await gql<{
      sipTrunk: { name: string };
      sipTrunks: { items: { id: string }[]; total: number };
    }>(`query ($id: ID!) { sipTrunk(id: $id) { name } sipTrunks(pageSize: 100) { items { id } total } }`, {
      id,
    });
    expect(read.errors).toBeUndefined();
    expect(read.data!.sipTrunk.name).toBe('Over GraphQL');
    expect(read.data!.sipTrunks.items.map((item) => item.id)).toContain(id);

    const updated = await gql<{ updateSipTrunk: Record<string, unknown> }>(
      `mutation ($id: ID!, $input: UpdateSipTrunkInput!) { updateSipTrunk(id: $id, input: $input) { name hasPassword isDefault } }`,
      { id, input: { name: 'Changed over GraphQL', password: null, isDefault: true } },
    );
    expect(updated.errors, updated.text).toBeUndefined();
    expect(updated.data!.updateSipTrunk).toEqual({
      name: 'Changed over GraphQL',
      hasPassword: false,
      isDefault: true,
    });

    const badUri = await gql(
      `mutation { createSipTrunk(input: { name: "Bad", uri: "sip:user@host.example.com" }) { id } }`,
    );
    expect(badUri.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
    });
    expect(badUri.errors?.[0]?.extensions?.fields).toEqual(['uri']);

    const theirs = await create({ name: 'Theirs' }, other.key);
    const notFound = await gql<{ sipTrunk: null }>(`query ($id: ID!) { sipTrunk(id: $id) { id } }`, {
      id: theirs.id,
    });
    expect(notFound.errors?.[0]?.extensions).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'SIP_TRUNK_NOT_FOUND',
    });
    expect(notFound.data).toEqual({ sipTrunk: null });

    const deleted = await gql<{ deleteSipTrunk: boolean }>(
      `mutation ($id: ID!) { deleteSipTrunk(id: $id) }`,
      { id },
    );
    expect(deleted.data).toEqual({ deleteSipTrunk: true });
    expect((await rest('GET', `/v1/sip-trunks/${id}`)).status).toBe(404);
  });

  it('runs the same operations over tRPC', async () => {
    const client = clientFor(acme.key);
    const [first, second] = [number(), number()];
    const trunk = await client.sipTrunks.create.mutate({
      name: 'Over tRPC',
      uri: 'sip:trpc.example.com',
      username: 'trpc',
      password: PASSWORDS[3],
      numbers: [first],
    });
    expect(trunk).not.toHaveProperty('password');
    expect(trunk).toMatchObject({ has_password: true, numbers: [first], uri: 'sip:trpc.example.com' });
    expect(await client.sipTrunks.get.query({ id: trunk.id })).toEqual(trunk);
    const page = await client.sipTrunks.list.query({ page_size: 100 });
    expect(page.items.map((item) => item.id)).toContain(trunk.id);
    const updated = await client.sipTrunks.update.mutate({
      id: trunk.id,
      numbers: [first, second],
      calls_per_second: 2.5,
    });
    expect(updated).toMatchObject({ numbers: [first, second], calls_per_second: 2.5, has_password: true });

    const badUri = await failure(
      client.sipTrunks.create.mutate({ name: 'Bad', uri: 'sip:host.example.com?x=1' }),
    );
    expect(badUri.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'VALIDATION_FAILED' });
    expect(badUri.data?.issues).toEqual([
      { loc: ['input', 'uri'], msg: 'must not carry headers (?...)', type: 'custom' },
    ]);
    // Found by the service, located in the input as every tRPC issue is.
    const taken = await failure(
      client.sipTrunks.create.mutate({ name: 'Taken', uri: 'sip:x.example.com', numbers: [second] }),
    );
    expect(taken.data?.issues).toEqual([
      {
        loc: ['input', 'numbers', 0],
        msg: `${second} already belongs to trunk ${trunk.id}`,
        type: 'number_taken',
      },
    ]);
    const theirs = await failure(clientFor(other.key).sipTrunks.get.query({ id: trunk.id }));
    expect(theirs.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, reason: 'SIP_TRUNK_NOT_FOUND' });

    expect(await client.sipTrunks.delete.mutate({ id: trunk.id })).toEqual({ deleted: true });
    expect((await failure(client.sipTrunks.get.query({ id: trunk.id }))).data?.reason).toBe(
      'SIP_TRUNK_NOT_FOUND',
    );
  });

  it('wrote no password it was given into any log line', () => {
    expect(t.logs.length).toBeGreaterThan(0);
    const written = t.logs.map((line) => JSON.stringify(line)).join('\n');
    for (const password of PASSWORDS) expect(written).not.toContain(password);
  });
});
