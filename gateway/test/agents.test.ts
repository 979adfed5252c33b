import type { Agent, PageOf as Page } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey, type TestAccount } from '../../platform/test/support/accounts';
import { startTestPlatform, type TestPlatform } from '../../platform/test/support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../../platform/test/support/http';

type Issues = { loc: (string | number)[]; msg: string; type: string }[];

const BASE = {
  name: 'Riley',
  start_flow: 'Hi, this is Riley from Acme.',
  end_flow: 'Thanks for your time, goodbye!',
};
const MISSING = '00000000-0000-4000-8000-000000000000';

describe.each(infraModes())('agents (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let other: TestAccount;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
    acme = await createAccount(t, { name: 'Acme' });
    other = await createAccount(t, { name: 'Other' });
  });
  afterAll(async () => t?.stop());

  const call = <T = Agent>(method: string, path: string, body?: unknown, key = acme.key) =>
    api<Envelope<T> & ErrorEnvelope>(t.url, method, path, { key, ...(body === undefined ? {} : { body }) });
  const create = async (body: Record<string, unknown> = {}, key = acme.key) => {
    const res = await call('POST', '/v1/agents', { ...BASE, ...body }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  };

  it('creates an agent with catalogue defaults and a generated prompt', async () => {
    const agent = await create();
    expect(agent).toMatchObject({
      name: 'Riley',
      agent_type: 'custom',
      industry: null,
      language: 'en',
      prompt_source: 'generated',
      active_prompt_version_id: null,
      webhook_config: null,
    });
    expect(agent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.voice).toBeTruthy();
    expect(agent.ai_model).toBeTruthy();
    expect(agent.prompt.length).toBeGreaterThanOrEqual(1500);
    expect(agent.prompt).toContain(BASE.start_flow);
    expect(agent.prompt).toContain(BASE.end_flow);
  });

  it('sets the industry from an industry agent type, and keeps a supplied prompt as custom', async () => {
    const industry = await create({
      agent_type: 'real_estate_lead_qualifier',
      language: 'es',
      description: 'Homes in Madrid',
    });
    expect(industry).toMatchObject({
      agent_type: 'real_estate_lead_qualifier',
      industry: 'real_estate',
      language: 'es',
    });
    expect(industry.prompt).toContain('Spanish');
    const custom = await create({ prompt: 'You are a helpful assistant that books demos.' });
    expect(custom).toMatchObject({
      prompt: 'You are a helpful assistant that books demos.',
      prompt_source: 'custom',
    });
  });

  it('reports every bad catalogue value and field in one 422', async () => {
    const res = await call('POST', '/v1/agents', {
      ...BASE,
      agent_type: 'astronaut',
      language: 'xx',
      voice: 'nobody',
      ai_model: 'gpt-17',
    });
    expect(res.status).toBe(422);
    const locs = (res.body.detail as Issues).map((d) => d.loc.join('.'));
    expect(locs).toEqual(
      expect.arrayContaining(['body.agent_type', 'body.language', 'body.voice', 'body.ai_model']),
    );
    const fields = await call('POST', '/v1/agents', {
      name: '',
      start_flow: 'x'.repeat(2001),
      description: 'd'.repeat(2001),
    });
    expect(fields.status).toBe(422);
    expect((fields.body.detail as Issues).map((d) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.name', 'body.start_flow', 'body.end_flow', 'body.description']),
    );
    const long = await call('POST', '/v1/agents', { ...BASE, name: 'n'.repeat(101) });
    expect((long.body.detail as Issues)[0]?.loc).toEqual(['body', 'name']);
  });

  it('refuses a voice that does not speak the language', async () => {
    const voices = (await api<Envelope<{ id: string; languages: string[] }[]>>(t.url, 'GET', '/v1/voices'))
      .body.data;
    const englishOnly = voices.find((v) => v.languages.every((l) => l.startsWith('en')));
    expect(englishOnly).toBeDefined();
    const res = await call('POST', '/v1/agents', { ...BASE, language: 'ja', voice: englishOnly!.id });
    expect(res.status).toBe(422);
    expect((res.body.detail as Issues)[0]).toMatchObject({ loc: ['body', 'voice'] });
  });

  it('lists agents newest first in the page wrapper, only the caller’s', async () => {
    const mine = await create({ name: 'Lister' });
    await create({ name: 'Foreign' }, other.key);
    const page = await call<Page<Agent>>('GET', '/v1/agents?page=1&page_size=2');
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ page: 1, page_size: 2, has_more: true });
    expect(page.body.data.items[0]?.id).toBe(mine.id);
    const all = await call<Page<Agent>>('GET', '/v1/agents?page_size=100');
    expect(all.body.data.items.map((a) => a.name)).not.toContain('Foreign');
    expect(all.body.data.total).toBe(all.body.data.items.length);
  });

  it('answers 404 for a missing agent and for another account’s agent, on every operation', async () => {
    const foreign = await create({ name: 'Theirs' }, other.key);
    for (const id of [MISSING, foreign.id]) {
      for (const [method, path, body] of [
        ['GET', `/v1/agents/${id}`],
        ['PATCH', `/v1/agents/${id}`, { name: 'x' }],
        ['DELETE', `/v1/agents/${id}`],
        ['GET', `/v1/agents/${id}/prompt`],
        ['PUT', `/v1/agents/${id}/instructions`, { instructions: 'x' }],
        ['GET', `/v1/agents/${id}/prompt-versions`],
        ['POST', `/v1/agents/${id}/prompt-versions`, {}],
        ['GET', `/v1/agents/${id}/prompt-versions/status`],
        ['POST', `/v1/agents/${id}/prompt-versions/${MISSING}/restore`],
        ['DELETE', `/v1/agents/${id}/prompt-versions/${MISSING}`],
      ] as const) {
        const res = await call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.detail).toBe('Agent not found');
      }
    }
    expect((await call('GET', `/v1/agents/${foreign.id}`, undefined, other.key)).status).toBe(200);
    expect((await call('GET', '/v1/agents/not-a-uuid')).status).toBe(422);
  });

  it('updates partially, regenerating a generated prompt when its inputs change', async () => {
    const agent = await create({ agent_type: 'sales' });
    const renamed = (await call('PATCH', `/v1/agents/${agent.id}`, { name: 'Morgan' })).body.data;
    expect(renamed).toMatchObject({
      name: 'Morgan',
      agent_type: 'sales',
      language: 'en',
      voice: agent.voice,
      start_flow: BASE.start_flow,
    });
    expect(renamed.prompt).not.toBe(agent.prompt);
    const retyped = (await call('PATCH', `/v1/agents/${agent.id}`, { agent_type: 'support' })).body.data;
    expect(retyped.prompt_source).toBe('generated');
    expect(retyped.prompt).not.toBe(renamed.prompt);
    const french = (await call('PATCH', `/v1/agents/${agent.id}`, { language: 'fr', voice: pickVoice('fr') }))
      .body.data;
    expect(french.language).toBe('fr');
    expect(french.prompt).toContain('French');
  });

  it('keeps a custom prompt through other changes, and returns to generated on prompt: null', async () => {
    const agent = await create({ prompt: 'Custom words.' });
    const changed = (await call('PATCH', `/v1/agents/${agent.id}`, { agent_type: 'retention', name: 'Sam' }))
      .body.data;
    expect(changed).toMatchObject({
      prompt: 'Custom words.',
      prompt_source: 'custom',
      agent_type: 'retention',
    });
    const back = (await call('PATCH', `/v1/agents/${agent.id}`, { prompt: null })).body.data;
    expect(back.prompt_source).toBe('generated');
    expect(back.prompt.length).toBeGreaterThanOrEqual(1500);
  });

  it('stores webhook_config with a secret it never returns, and removes it with null', async () => {
    const agent = await create();
    const secret = 's3cret-value-that-is-long-enough';
    const set = await call('PATCH', `/v1/agents/${agent.id}`, {
      webhook_config: { url: 'http://127.0.0.1:9/hook', events: ['CALL_ENDED'], secret },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.webhook_config).toEqual({
      url: 'http://127.0.0.1:9/hook',
      events: ['CALL_ENDED'],
      has_secret: true,
    });
    for (const res of [
      set,
      await call('GET', `/v1/agents/${agent.id}`),
      await call('GET', '/v1/agents?page_size=100'),
    ]) {
      expect(res.text).not.toContain(secret);
    }
    const moved = await call('PATCH', `/v1/agents/${agent.id}`, {
      webhook_config: { url: 'http://127.0.0.1:9/new' },
    });
    expect(moved.body.data.webhook_config).toEqual({
      url: 'http://127.0.0.1:9/new',
      events: ['CALL_ENDED'],
      has_secret: true,
    });
    const unsigned = await call('PATCH', `/v1/agents/${agent.id}`, {
      webhook_config: { url: 'http://127.0.0.1:9/new', secret: null },
    });
    expect(unsigned.body.data.webhook_config?.has_secret).toBe(false);
    const removed = await call('PATCH', `/v1/agents/${agent.id}`, { webhook_config: null });
    expect(removed.body.data.webhook_config).toBeNull();
  });

  it('validates webhook_config: scheme, events, secret length', async () => {
    const agent = await create();
    const bad = async (webhook_config: unknown, loc: string) => {
      const res = await call('PATCH', `/v1/agents/${agent.id}`, { webhook_config });
      expect(res.status, JSON.stringify(webhook_config)).toBe(422);
      expect((res.body.detail as Issues).map((d) => d.loc.join('.'))).toContain(loc);
    };
    await bad({ url: 'ftp://example.com/hook' }, 'body.webhook_config.url');
    await bad({ url: 'not a url' }, 'body.webhook_config.url');
    await bad({ url: 'http://127.0.0.1/h', events: ['CALL_STARTED'] }, 'body.webhook_config.events.0');
    await bad({ url: 'http://127.0.0.1/h', secret: 'short' }, 'body.webhook_config.secret');
  });

  it('deletes an agent (204), after which it is gone', async () => {
    const agent = await create();
    const res = await call('DELETE', `/v1/agents/${agent.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call('GET', `/v1/agents/${agent.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/agents/${agent.id}`)).status).toBe(404);
  });

  it('gets the prompt and saves instructions as the prompt', async () => {
    const agent = await create();
    const prompt = await call<{ prompt: string; prompt_source: string }>(
      'GET',
      `/v1/agents/${agent.id}/prompt`,
    );
    expect(prompt.body.data).toMatchObject({
      agent_id: agent.id,
      prompt: agent.prompt,
      prompt_source: 'generated',
    });
    const saved = await call('PUT', `/v1/agents/${agent.id}/instructions`, {
      instructions: 'Be brief and kind.',
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({ prompt: 'Be brief and kind.', prompt_source: 'custom' });
    expect((await call('GET', `/v1/agents/${agent.id}`)).body.data.prompt).toBe('Be brief and kind.');
    expect((await call('PUT', `/v1/agents/${agent.id}/instructions`, { instructions: '' })).status).toBe(422);
  });

  it('versions prompts: save, status, list, restore, and never delete the active one', async () => {
    const agent = await create();
    const base = `/v1/agents/${agent.id}/prompt-versions`;
    const v1 = await call<{ id: string; version: number; is_active: boolean; prompt: string }>('POST', base, {
      label: 'first',
    });
    expect(v1.status).toBe(201);
    expect(v1.body.data).toMatchObject({ version: 1, label: 'first', is_active: true, prompt: agent.prompt });
    let status = await call<Record<string, unknown>>('GET', `${base}/status`);
    expect(status.body.data).toMatchObject({
      active_version_id: v1.body.data.id,
      current_differs_from_active: false,
      count: 1,
    });
    await call('PUT', `/v1/agents/${agent.id}/instructions`, { instructions: 'Second prompt.' });
    status = await call('GET', `${base}/status`);
    expect(status.body.data.current_differs_from_active).toBe(true);
    const v2 = await call<{ id: string; version: number }>('POST', base);
    expect(v2.body.data.version).toBe(2);
    const list = await call<Page<{ id: string; version: number; is_active: boolean }>>('GET', base);
    expect(list.body.data.items.map((v) => [v.version, v.is_active])).toEqual([
      [2, true],
      [1, false],
    ]);
    const restored = await call('POST', `${base}/${v1.body.data.id}/restore`);
    expect(restored.body.data).toMatchObject({
      prompt: agent.prompt,
      active_prompt_version_id: v1.body.data.id,
    });
    expect((await call('DELETE', `${base}/${v1.body.data.id}`)).status).toBe(409);
    expect((await call('DELETE', `${base}/${v2.body.data.id}`)).status).toBe(204);
    expect((await call('DELETE', `${base}/${v2.body.data.id}`)).status).toBe(404);
    expect((await call('POST', `${base}/${v2.body.data.id}/restore`)).status).toBe(404);
    const otherAgent = await create();
    expect(
      (await call('POST', `/v1/agents/${otherAgent.id}/prompt-versions/${v1.body.data.id}/restore`)).status,
    ).toBe(404);
  });

  it('enforces agents:read and agents:write', async () => {
    const readOnly = await createKey(t, acme.accountId, ['agents:read']);
    const noAgents = await createKey(t, acme.accountId, ['calls:read']);
    expect((await call('GET', '/v1/agents', undefined, readOnly)).status).toBe(200);
    const refused = await call('POST', '/v1/agents', BASE, readOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This API key lacks the agents:write scope');
    expect((await call('GET', '/v1/agents', undefined, noAgents)).status).toBe(403);
    expect((await call('GET', '/v1/agents')).status).toBe(200);
  });

  let voices: { id: string; languages: string[] }[] = [];
  function pickVoice(language: string): string {
    const found = voices.find((v) => v.languages.some((l) => l.split('-')[0] === language));
    if (!found) throw new Error(`no voice for ${language}`);
    return found.id;
  }
  beforeAll(async () => {
    voices = (await api<Envelope<{ id: string; languages: string[] }[]>>(t.url, 'GET', '/v1/voices')).body
      .data;
  });
});

describe.each(infraModes())('webhook URLs when private addresses are not allowed (%s)', (mode) => {
  let t: TestPlatform;
  let key: string;
  beforeAll(async () => {
    t = await startTestPlatform(mode, { config: { WEBHOOK_ALLOW_PRIVATE: false } });
    key = (await createAccount(t)).key;
  });
  afterAll(async () => t?.stop());

  it.each([
    'http://127.0.0.1/hook',
    'http://localhost:8080/hook',
    'http://10.1.2.3/hook',
    'http://192.168.1.10/hook',
    'http://100.64.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://0x7f.1/hook',
    'http://does-not-resolve.invalid/hook',
  ])('refuses %s with a 422 on webhook_config.url', async (url) => {
    const res = await api<ErrorEnvelope>(t.url, 'POST', '/v1/agents', {
      key,
      body: { ...BASE, webhook_config: { url } },
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as Issues)[0]).toMatchObject({
      loc: ['body', 'webhook_config', 'url'],
      type: 'url_not_allowed',
    });
  });

  it('accepts a public address', async () => {
    const res = await api<Envelope<Agent>>(t.url, 'POST', '/v1/agents', {
      key,
      body: { ...BASE, webhook_config: { url: 'https://93.184.216.34/hooks/voice' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.webhook_config?.url).toBe('https://93.184.216.34/hooks/voice');
  });
});
