import type { Agent } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

type Issue = { loc: (string | number)[]; msg: string; type: string };

const FROM = '+14155550100';
const AGENT = { name: 'Riley', start_flow: 'Hi, this is Riley.', end_flow: 'Goodbye!' };
/** Bidirectional embeddings, overrides and isolates. */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
const BIDI_MSG = expect.stringContaining('bidirectional control characters');
const SURROGATE = { msg: expect.stringContaining('unpaired surrogate'), type: 'string_surrogate' };

/**
 * One rule for text on every surface: names and labels refuse bidirectional controls (a name that
 * displays as another), and no field anywhere takes an unpaired surrogate (stored as U+FFFD, or
 * refused by the database without naming the field).
 */
describe.each(infraModes())('text rules (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agent: Agent;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
    acme = await createAccount(t, { name: 'Acme' });
    const created = await api<Envelope<Agent>>(t.url, 'POST', '/v1/agents', { key: acme.key, body: AGENT });
    agent = created.body.data;
  });
  afterAll(async () => t?.stop());

  const post = (path: string, body: unknown, key = acme.key) =>
    api<ErrorEnvelope & Envelope<unknown>>(t.url, 'POST', path, { key, body });
  const issuesOf = (res: { body: ErrorEnvelope }) => res.body.detail as Issue[];

  it('refuses bidirectional controls in every name and label, and takes right-to-left text', async () => {
    const campaign = { agent_id: agent.id, phone_number: FROM, contacts: [{ phone: '+14155550123' }] };
    const admin = t.adminToken;
    const account = await post('/admin/accounts', { name: 'Named', plan: 'free' }, admin);
    const named = (account.body.data as { id: string }).id;
    for (const char of BIDI) {
      const name = `Ri${char}ley`;
      const cases: [string, unknown, string | undefined, string][] = [
        ['/v1/agents', { ...AGENT, name }, acme.key, 'name'],
        [`/v1/agents/${agent.id}/prompt-versions`, { label: name }, acme.key, 'label'],
        ['/v1/campaigns', { ...campaign, name }, acme.key, 'name'],
        ['/admin/accounts', { name, plan: 'free' }, admin, 'name'],
        [`/admin/accounts/${named}/api-keys`, { name }, admin, 'name'],
      ];
      for (const [path, body, key, field] of cases) {
        const res = await post(path, body, key);
        expect(res.status, `${path} ${JSON.stringify(name)}`).toBe(422);
        expect(issuesOf(res), path).toEqual([{ loc: ['body', field], msg: BIDI_MSG, type: 'custom' }]);
      }
    }
    const hebrew = await post('/v1/agents', { ...AGENT, name: 'שירה Riley' });
    expect(hebrew.status).toBe(201);
    expect((hebrew.body.data as Agent).name).toBe('שירה Riley');
  });

  it('refuses unpaired surrogates in any field with a 422 naming it, and keeps pairs (emoji)', async () => {
    const name = await post('/v1/agents', { ...AGENT, name: 'Ri\ud800ley' });
    expect(name.status).toBe(422);
    expect(issuesOf(name)).toEqual([{ loc: ['body', 'name'], ...SURROGATE }]);

    const call = { agent_id: agent.id, source_number: FROM, phone_number: '+14155550123' };
    const metadata = await post('/v1/call', { ...call, metadata: { note: 'a\udc00' } });
    expect(metadata.status).toBe(422);
    expect(issuesOf(metadata)).toEqual([{ loc: ['body', 'metadata', 'note'], ...SURROGATE }]);
    const key = await post('/v1/call', { ...call, metadata: { '\ud83e': 1 } });
    expect(issuesOf(key)).toEqual([
      {
        loc: ['body', 'metadata'],
        msg: expect.stringMatching(/^keys .*unpaired surrogate/),
        type: 'string_surrogate',
      },
    ]);

    const emoji = await post('/v1/agents', { ...AGENT, name: 'Riley \ud83e\udd16' });
    expect(emoji.status).toBe(201);
    expect((emoji.body.data as Agent).name).toBe('Riley 🤖');
  });

  it('refuses the same over tRPC, issues located from `input`', async () => {
    const trpc = async (name: string) => {
      const res = await fetch(`${t.url}/trpc/agents.create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...AGENT, name }),
      });
      const body = (await res.json()) as { error: { data: { code: string; issues: Issue[] } } };
      return { status: res.status, data: body.error.data };
    };
    const surrogate = await trpc('Ri\udbffley');
    expect(surrogate.status).toBe(400);
    expect(surrogate.data.issues).toEqual([{ loc: ['input', 'name'], ...SURROGATE }]);
    const bidi = await trpc('Ri\u202eley');
    expect(bidi.status).toBe(400);
    expect(bidi.data.issues).toEqual([{ loc: ['input', 'name'], msg: BIDI_MSG, type: 'custom' }]);
  });

  it('refuses the same over GraphQL, naming the field', async () => {
    const gql = async (name: string) => {
      const res = await api<{ errors?: { extensions: { code: string; fields: string[] } }[] }>(
        t.url,
        'POST',
        '/graphql',
        {
          key: acme.key,
          body: {
            query: 'mutation ($input: CreateAgentInput!) { createAgent(input: $input) { id } }',
            variables: { input: { name, startFlow: AGENT.start_flow, endFlow: AGENT.end_flow } },
          },
        },
      );
      return res.body.errors?.[0]?.extensions;
    };
    expect(await gql('Ri\u2066ley')).toMatchObject({ code: 'BAD_USER_INPUT', fields: ['name'] });
    expect(await gql('Ri\ud800ley')).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: ['variables.input.name'],
    });
  });
});
