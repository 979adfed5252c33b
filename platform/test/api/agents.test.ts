import type { Agent, PageOf as Page } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createKey, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

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

  it('answers an unchanged agent identically, and shows a change made anywhere on the next read, even one that kept updated_at', async () => {
    const agent = await create({ name: 'Kept' });
    const read = async () => {
      const res = await call('GET', `/v1/agents/${agent.id}`);
      expect(res.status).toBe(200);
      return res.body.data;
    };
    const first = await read();
    expect(await read()).toEqual(first);
    // Changed behind the platform's back, updated_at left as it was: the row's version still moved.
    const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql`UPDATE agent.agents SET name = 'Changed by hand', updated_at = updated_at WHERE id = ${agent.id}`;
    } finally {
      await sql.end({ timeout: 5 });
    }
    const changed = await read();
    expect(changed).toEqual({ ...first, name: 'Changed by hand' });
    // And through the API, as ever; another account still finds nothing.
    const patched = await call('PATCH', `/v1/agents/${agent.id}`, { description: 'Now described' });
    expect(patched.status).toBe(200);
    expect(await read()).toMatchObject({ name: 'Changed by hand', description: 'Now described' });
    expect((await call('GET', `/v1/agents/${agent.id}`, undefined, other.key)).status).toBe(404);
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

  it('validates webhook_config: scheme, events, secret length (1..256)', async () => {
    const agent = await create();
    const bad = async (webhook_config: unknown, loc: string) => {
      const res = await call('PATCH', `/v1/agents/${agent.id}`, { webhook_config });
      expect(res.status, JSON.stringify(webhook_config)).toBe(422);
      expect((res.body.detail as Issues).map((d) => d.loc.join('.'))).toContain(loc);
    };
    await bad({ url: 'ftp://example.com/hook' }, 'body.webhook_config.url');
    await bad({ url: 'not a url' }, 'body.webhook_config.url');
    await bad({ url: 'http://127.0.0.1/h', events: ['CALL_STARTED'] }, 'body.webhook_config.events.0');
    await bad({ url: 'http://127.0.0.1/h', secret: '' }, 'body.webhook_config.secret');
    await bad({ url: 'http://127.0.0.1/h', secret: 's'.repeat(257) }, 'body.webhook_config.secret');
    await bad({ url: 'http://127.0.0.1/h', secret: 42 }, 'body.webhook_config.secret');
    // Any non-empty string up to 256 characters is a secret: short ones too (docs recommend 32+).
    for (const secret of ['x', 'short', 's'.repeat(256)]) {
      const res = await call('PATCH', `/v1/agents/${agent.id}`, {
        webhook_config: { url: 'http://127.0.0.1/h', secret },
      });
      expect(res.status, secret).toBe(200);
      expect(res.body.data.webhook_config?.has_secret).toBe(true);
    }
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

  describe('review fixes', () => {
    // Its own account (so its own rate-limit budget).
    let mine: TestAccount;
    beforeAll(async () => {
      mine = await createAccount(t, { name: 'Reviewed' });
    });
    const req = <T = Agent>(method: string, path: string, body?: unknown, key = mine.key) =>
      call<T>(method, path, body, key);
    const make = (body: Record<string, unknown> = {}) => create(body, mine.key);
    const locsOf = (res: { body: { detail: unknown } }) =>
      (res.body.detail as Issues).map((d) => d.loc.join('.'));
    const issueAt = (res: { body: { detail: unknown } }, loc: string) =>
      (res.body.detail as Issues).find((d) => d.loc.join('.') === loc);
    const languagesOf = (voiceId: string) => voices.find((v) => v.id === voiceId)?.languages ?? [];
    type Version = { id: string; version: number; prompt: string; prompt_source: string; is_active: boolean };

    it('lists schema, catalogue and voice problems in one 422 on POST', async () => {
      const res = await req('POST', '/v1/agents', {
        name: '',
        agent_type: 'astronaut',
        voice: 'nobody',
        start_flow: BASE.start_flow,
        end_flow: BASE.end_flow,
      });
      expect(res.status).toBe(422);
      const locs = locsOf(res);
      expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.agent_type', 'body.voice']));
      expect(new Set(locs).size).toBe(locs.length);
      const all = await req('POST', '/v1/agents', {
        name: 'n'.repeat(101),
        agent_type: 'astronaut',
        language: 'xx',
        ai_model: 'gpt-17',
        end_flow: 'x'.repeat(2001),
      });
      expect(locsOf(all)).toEqual(
        expect.arrayContaining([
          'body.name',
          'body.start_flow',
          'body.end_flow',
          'body.agent_type',
          'body.language',
          'body.ai_model',
        ]),
      );
      // On create the voice is judged against the language the agent would get (en by default).
      const japaneseOnly = voices.find((v) => v.languages.every((l) => l === 'ja'))!;
      const voiceOnly = await req('POST', '/v1/agents', { name: '', voice: japaneseOnly.id });
      expect(locsOf(voiceOnly)).toEqual(expect.arrayContaining(['body.name', 'body.voice']));
    });

    it('lists schema and catalogue problems in one 422 on PATCH, judging only what was sent', async () => {
      const agent = await make();
      const res = await req('PATCH', `/v1/agents/${agent.id}`, {
        name: '',
        agent_type: 'astronaut',
        voice: 'nobody',
      });
      expect(res.status).toBe(422);
      expect(locsOf(res)).toEqual(expect.arrayContaining(['body.name', 'body.agent_type', 'body.voice']));
      const every = await req('PATCH', `/v1/agents/${agent.id}`, {
        name: '',
        language: 'xx',
        ai_model: 'gpt-17',
      });
      expect(locsOf(every)).toEqual(expect.arrayContaining(['body.name', 'body.language', 'body.ai_model']));
      // A voice with no language in the request is not judged against one (the agent's is not looked up).
      const japaneseOnly = voices.find((v) => v.languages.every((l) => l === 'ja'))!;
      const voiceAlone = await req('PATCH', `/v1/agents/${agent.id}`, { name: '', voice: japaneseOnly.id });
      expect(locsOf(voiceAlone)).toEqual(['body.name']);
      const both = await req('PATCH', `/v1/agents/${agent.id}`, {
        name: '',
        language: 'de',
        voice: japaneseOnly.id,
      });
      expect(locsOf(both)).toEqual(expect.arrayContaining(['body.name', 'body.voice']));
      expect((await req('GET', `/v1/agents/${agent.id}`)).body.data).toEqual(agent);
    });

    it('reports a location once when the schema and the service both find it wrong', async () => {
      const res = await req('POST', '/v1/agents', {
        ...BASE,
        name: '',
        webhook_config: { url: 'ftp://example.com/hook' },
      });
      expect(res.status).toBe(422);
      const locs = locsOf(res);
      expect(locs.filter((loc) => loc === 'body.webhook_config.url')).toHaveLength(1);
      expect(issueAt(res, 'body.webhook_config.url')?.msg).toBe('must be an http or https URL');
      expect(locs).toContain('body.name');
    });

    it('never reuses a version number, even after deleting the newest version', async () => {
      const agent = await make();
      const base = `/v1/agents/${agent.id}/prompt-versions`;
      const v1 = (await req<Version>('POST', base)).body.data;
      await req('PUT', `/v1/agents/${agent.id}/instructions`, { instructions: 'Second.' });
      const v2 = (await req<Version>('POST', base)).body.data;
      expect([v1.version, v2.version]).toEqual([1, 2]);
      expect((await req('POST', `${base}/${v1.id}/restore`)).status).toBe(200);
      expect((await req('DELETE', `${base}/${v2.id}`)).status).toBe(204);
      const v3 = await req<Version>('POST', base);
      expect(v3.status).toBe(201);
      expect(v3.body.data.version).toBe(3);
      const list = (await req<Page<Version>>('GET', base)).body.data;
      expect(list.items.map((v) => v.version)).toEqual([3, 1]);
    });

    it('gives a regional language a voice that lists it exactly', async () => {
      for (const language of ['pt-PT', 'fr-CA', 'es-MX', 'en-IN', 'en-AU', 'en-GB']) {
        const agent = await make({ language });
        expect(agent.language).toBe(language);
        expect(languagesOf(agent.voice), `${language}: ${agent.voice}`).toContain(language);
      }
      // The catalogue default keeps the languages it lists exactly.
      const defaultVoice = (await make()).voice;
      expect((await make({ language: 'es' })).voice).toBe(defaultVoice);
    });

    it('refuses a voice of another region, and accepts one of the bare base language', async () => {
      const brazilian = voices.find((v) => v.languages.length > 0 && v.languages.every((l) => l === 'pt-BR'));
      expect(brazilian).toBeDefined();
      const refused = await req('POST', '/v1/agents', { ...BASE, language: 'pt-PT', voice: brazilian!.id });
      expect(refused.status).toBe(422);
      expect(locsOf(refused)).toEqual(['body.voice']);
      // A voice listing `fr` speaks fr-CA; a voice listing only es-MX-and-es speaks `es`.
      const french = voices.find((v) => v.languages.includes('fr') && !v.languages.includes('fr-CA'))!;
      expect((await req('POST', '/v1/agents', { ...BASE, language: 'fr-CA', voice: french.id })).status).toBe(
        201,
      );
      const mexican = voices.find((v) => v.languages.includes('es-MX'))!;
      expect((await req('POST', '/v1/agents', { ...BASE, language: 'es', voice: mexican.id })).status).toBe(
        201,
      );
      const agent = await make();
      const patched = await req('PATCH', `/v1/agents/${agent.id}`, {
        language: 'pt-PT',
        voice: brazilian!.id,
      });
      expect(patched.status).toBe(422);
      expect(locsOf(patched)).toEqual(['body.voice']);
    });

    it('restores a generated version as generated: a later change of an input regenerates it', async () => {
      const agent = await make({ agent_type: 'sales' });
      const base = `/v1/agents/${agent.id}/prompt-versions`;
      const v1 = (await req<Version>('POST', base)).body.data;
      expect(v1.prompt_source).toBe('generated');
      const renamed = (await req('PATCH', `/v1/agents/${agent.id}`, { name: 'Morgan' })).body.data;
      expect(renamed.prompt).not.toBe(v1.prompt);
      const restored = (await req('POST', `${base}/${v1.id}/restore`)).body.data;
      expect(restored).toMatchObject({ prompt: v1.prompt, prompt_source: 'generated' });
      // A change that is not a prompt input leaves the restored prompt as it is.
      const otherVoice = voices.find((v) => v.id !== agent.voice && v.languages.includes('en'))!.id;
      const revoiced = (await req('PATCH', `/v1/agents/${agent.id}`, { voice: otherVoice })).body.data;
      expect(revoiced).toMatchObject({ prompt: v1.prompt, prompt_source: 'generated' });
      const french = (await req('PATCH', `/v1/agents/${agent.id}`, { language: 'fr' })).body.data;
      expect(french.prompt_source).toBe('generated');
      expect(french.prompt).not.toBe(v1.prompt);
      expect(french.prompt).toContain('French');
      expect(french.prompt).toContain('Morgan');
    });

    it('restores a custom version as custom: a later name change keeps it', async () => {
      const agent = await make();
      const base = `/v1/agents/${agent.id}/prompt-versions`;
      await req('PUT', `/v1/agents/${agent.id}/instructions`, { instructions: 'Pinned words.' });
      const v1 = (await req<Version>('POST', base)).body.data;
      expect(v1.prompt_source).toBe('custom');
      await req('PATCH', `/v1/agents/${agent.id}`, { prompt: null });
      expect((await req('GET', `/v1/agents/${agent.id}`)).body.data.prompt_source).toBe('generated');
      const restored = (await req('POST', `${base}/${v1.id}/restore`)).body.data;
      expect(restored).toMatchObject({ prompt: 'Pinned words.', prompt_source: 'custom' });
      const renamed = (await req('PATCH', `/v1/agents/${agent.id}`, { name: 'Sam', language: 'de' })).body
        .data;
      expect(renamed).toMatchObject({ name: 'Sam', prompt: 'Pinned words.', prompt_source: 'custom' });
    });

    it('regenerates a generated prompt when description or start_flow changes', async () => {
      const agent = await make({ agent_type: 'support' });
      const described = (
        await req('PATCH', `/v1/agents/${agent.id}`, { description: 'Helps customers of Acme Bikes' })
      ).body.data;
      expect(described.prompt_source).toBe('generated');
      expect(described.prompt).not.toBe(agent.prompt);
      expect(described.prompt).toContain('Helps customers of Acme Bikes');
      const opened = (
        await req('PATCH', `/v1/agents/${agent.id}`, { start_flow: 'Hello, Riley from Acme Bikes here.' })
      ).body.data;
      expect(opened.prompt).not.toBe(described.prompt);
      expect(opened.prompt).toContain('Hello, Riley from Acme Bikes here.');
      expect(opened.prompt).not.toContain(BASE.start_flow);
    });

    it('moves to a voice of the new language when PATCH sends a language alone', async () => {
      const agent = await make();
      expect(languagesOf(agent.voice)).not.toContain('ja');
      const res = await req('PATCH', `/v1/agents/${agent.id}`, { language: 'ja' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.language).toBe('ja');
      expect(languagesOf(res.body.data.voice)).toContain('ja');
      expect(res.body.data.prompt).toContain('Japanese');
      // A voice that speaks the new language stays.
      const spanish = (await req('PATCH', `/v1/agents/${agent.id}`, { language: 'es' })).body.data;
      const kept = await make();
      const keptSpanish = (await req('PATCH', `/v1/agents/${kept.id}`, { language: 'es' })).body.data;
      expect(languagesOf(spanish.voice)).toContain('es');
      expect(keptSpanish.voice).toBe(kept.voice);
      // An incompatible voice the client sends is still refused.
      const englishOnly = voices.find((v) => v.languages.every((l) => l.startsWith('en')))!;
      const refused = await req('PATCH', `/v1/agents/${agent.id}`, { language: 'ja', voice: englishOnly.id });
      expect(refused.status).toBe(422);
      expect(locsOf(refused)).toEqual(['body.voice']);
    });

    it('takes an empty JSON body as no body', async () => {
      const agent = await make();
      const empty = (method: string, path: string, rawBody = '') =>
        api<Envelope<Version> & ErrorEnvelope>(t.url, method, path, {
          key: mine.key,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
      const saved = await empty('POST', `/v1/agents/${agent.id}/prompt-versions`);
      expect(saved.status, saved.text).toBe(201);
      expect(saved.body.data).toMatchObject({ version: 1, label: null });
      const again = await empty('POST', `/v1/agents/${agent.id}/prompt-versions`, ' \n\t ');
      expect(again.status, again.text).toBe(201);
      const restored = await empty(
        'POST',
        `/v1/agents/${agent.id}/prompt-versions/${saved.body.data.id}/restore`,
      );
      expect(restored.status, restored.text).toBe(200);
      const required = await empty('POST', '/v1/agents');
      expect(required.status).toBe(422);
      expect((required.body.detail as Issues).map((d) => d.loc)).toEqual([['body']]);
      const instructions = await empty('PUT', `/v1/agents/${agent.id}/instructions`);
      expect(instructions.status).toBe(422);
      expect((instructions.body.detail as Issues)[0]?.loc).toEqual(['body']);
      expect((await empty('POST', '/v1/agents', '{')).body.detail).toEqual([
        { loc: ['body'], msg: 'Body is not valid JSON', type: 'json_invalid' },
      ]);
    });

    it('says "http or https" only for a URL of another scheme', async () => {
      const agent = await make();
      const SCHEME = 'must be an http or https URL';
      const urlIssue = async (webhook_config: unknown) => {
        const res = await req('PATCH', `/v1/agents/${agent.id}`, { webhook_config });
        expect(res.status, JSON.stringify(webhook_config)).toBe(422);
        const found = issueAt(res, 'body.webhook_config.url');
        expect(found, JSON.stringify(res.body.detail)).toBeDefined();
        return found!;
      };
      expect((await urlIssue({})).msg).not.toBe(SCHEME);
      expect((await urlIssue({ url: null })).msg).not.toBe(SCHEME);
      expect((await urlIssue({ url: `https://example.com/${'a'.repeat(2049)}` })).msg).not.toBe(SCHEME);
      expect((await urlIssue({ url: 'not a url' })).msg).not.toBe(SCHEME);
      expect((await urlIssue({ url: 'ftp://example.com/hook' })).msg).toBe(SCHEME);
      expect((await urlIssue({ url: 'file:///etc/passwd' })).msg).toBe(SCHEME);
    });

    it('takes at most 10 webhook events and stores each once', async () => {
      const agent = await make();
      const url = 'http://127.0.0.1:9/hook';
      const many = await req('PATCH', `/v1/agents/${agent.id}`, {
        webhook_config: { url, events: Array(11).fill('CALL_ENDED') },
      });
      expect(many.status).toBe(422);
      expect(locsOf(many)).toEqual(['body.webhook_config.events']);
      const ten = await req('PATCH', `/v1/agents/${agent.id}`, {
        webhook_config: { url, events: Array(10).fill('CALL_ENDED') },
      });
      expect(ten.status).toBe(200);
      expect(ten.body.data.webhook_config?.events).toEqual(['CALL_ENDED']);
    });

    it('accepts description: null on create', async () => {
      const agent = await make({ description: null });
      expect(agent.description).toBeNull();
    });

    it('refuses names, flows and labels that are only invisible or control characters', async () => {
      for (const name of ['\u200b', '\u202e', '\u001b', ' \u200b\u2060 ', '\u3164', 'Ri\u001bley', 'A\nB']) {
        const res = await req('POST', '/v1/agents', { ...BASE, name });
        expect(res.status, JSON.stringify(name)).toBe(422);
        expect(locsOf(res), JSON.stringify(name)).toEqual(['body.name']);
      }
      for (const [field, value] of [
        ['start_flow', '\u200b\u200b'],
        ['end_flow', '\u202e'],
        ['end_flow', 'Goodbye\u001b[2J'],
        ['start_flow', 'Hi\rthere'],
      ] as const) {
        const res = await req('POST', '/v1/agents', { ...BASE, [field]: value });
        expect(res.status, JSON.stringify(value)).toBe(422);
        expect(locsOf(res), JSON.stringify(value)).toEqual([`body.${field}`]);
      }
      const fine = await make({ name: 'Zoë 🤖', start_flow: 'Hello,\n\tthis is Zoë.' });
      expect(fine).toMatchObject({ name: 'Zoë 🤖', start_flow: 'Hello,\n\tthis is Zoë.' });
      const patched = await req('PATCH', `/v1/agents/${fine.id}`, { name: '\u200b' });
      expect(locsOf(patched)).toEqual(['body.name']);
      const label = await req('POST', `/v1/agents/${fine.id}/prompt-versions`, { label: '\u200b' });
      expect(locsOf(label)).toEqual(['body.label']);
      const instructions = await req('PUT', `/v1/agents/${fine.id}/instructions`, { instructions: '\u200b' });
      expect(locsOf(instructions)).toEqual(['body.instructions']);
    });

    it('takes any non-empty secret, whitespace-only included, and refuses an empty one', async () => {
      const agent = await make();
      const spaces = await req('PATCH', `/v1/agents/${agent.id}`, {
        webhook_config: { url: 'http://127.0.0.1:9/hook', secret: ' ' },
      });
      expect(spaces.status).toBe(200);
      expect(spaces.body.data.webhook_config?.has_secret).toBe(true);
      const empty = await req('PATCH', `/v1/agents/${agent.id}`, {
        webhook_config: { url: 'http://127.0.0.1:9/hook', secret: '' },
      });
      expect(empty.status).toBe(422);
      expect(locsOf(empty)).toEqual(['body.webhook_config.secret']);
    });

    it('reports the current prompt as differing while no version is saved', async () => {
      const agent = await make();
      const status = await req<Record<string, unknown>>(
        'GET',
        `/v1/agents/${agent.id}/prompt-versions/status`,
      );
      expect(status.status).toBe(200);
      expect(status.body.data).toEqual({
        agent_id: agent.id,
        active_version_id: null,
        current_differs_from_active: true,
        count: 0,
      });
    });

    it('enforces the scopes on all twelve agent routes', async () => {
      const agent = await make();
      const version = (await req<Version>('POST', `/v1/agents/${agent.id}/prompt-versions`)).body.data;
      const before = (await req('GET', `/v1/agents/${agent.id}`)).body.data;
      const readOnly = await createKey(t, mine.accountId, ['agents:read']);
      const callsOnly = await createKey(t, mine.accountId, ['calls:read', 'calls:write']);
      const a = `/v1/agents/${agent.id}`;
      const writes = [
        ['POST', '/v1/agents', BASE],
        ['PATCH', a, { name: 'x' }],
        ['DELETE', a],
        ['PUT', `${a}/instructions`, { instructions: 'x' }],
        ['POST', `${a}/prompt-versions`, {}],
        ['POST', `${a}/prompt-versions/${version.id}/restore`],
        ['DELETE', `${a}/prompt-versions/${version.id}`],
      ] as const;
      const reads = [
        ['GET', '/v1/agents'],
        ['GET', a],
        ['GET', `${a}/prompt`],
        ['GET', `${a}/prompt-versions`],
        ['GET', `${a}/prompt-versions/status`],
      ] as const;
      for (const [method, path, body] of writes) {
        const res = await call(method, path, body, readOnly);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.detail).toBe('This API key lacks the agents:write scope');
      }
      for (const [method, path] of reads) {
        expect((await call(method, path, undefined, readOnly)).status, `${method} ${path}`).toBe(200);
        const res = await call(method, path, undefined, callsOnly);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.detail).toBe('This API key lacks the agents:read scope');
      }
      for (const [method, path, body] of writes) {
        expect((await call(method, path, body, callsOnly)).status, `${method} ${path}`).toBe(403);
      }
      // Nothing the refused writes asked for happened.
      expect((await req('GET', a)).body.data).toEqual(before);
      expect((await req<Page<Version>>('GET', `${a}/prompt-versions`)).body.data.total).toBe(1);
    });

    it('bounds every text field over HTTP', async () => {
      const agent = await make();
      const a = `/v1/agents/${agent.id}`;
      const refusedAt = async (method: string, path: string, body: unknown, loc: string) => {
        const res = await req(method, path, body);
        expect(res.status, loc).toBe(422);
        expect(locsOf(res), loc).toContain(loc);
      };
      await refusedAt('POST', '/v1/agents', { ...BASE, end_flow: 'e'.repeat(2001) }, 'body.end_flow');
      await refusedAt('POST', '/v1/agents', { ...BASE, prompt: 'p'.repeat(32_001) }, 'body.prompt');
      await refusedAt('PATCH', a, { prompt: 'p'.repeat(32_001) }, 'body.prompt');
      await refusedAt('PUT', `${a}/instructions`, { instructions: 'i'.repeat(32_001) }, 'body.instructions');
      await refusedAt('POST', `${a}/prompt-versions`, { label: 'l'.repeat(101) }, 'body.label');
      const url = 'http://127.0.0.1:9/hook';
      await refusedAt(
        'PATCH',
        a,
        { webhook_config: { url, secret: 's'.repeat(257) } },
        'body.webhook_config.secret',
      );
      await refusedAt(
        'PATCH',
        a,
        { webhook_config: { url: `http://127.0.0.1/${'u'.repeat(2049 - 17)}` } },
        'body.webhook_config.url',
      );
      // At the bounds, accepted.
      expect(`http://127.0.0.1/${'u'.repeat(2048 - 17)}`).toHaveLength(2048);
      const atBounds = await req('PATCH', a, {
        end_flow: 'e'.repeat(2000),
        prompt: 'p'.repeat(32_000),
        webhook_config: { url: `http://127.0.0.1/${'u'.repeat(2048 - 17)}`, secret: 's'.repeat(256) },
      });
      expect(atBounds.status, atBounds.text.slice(0, 500)).toBe(200);
      expect((await req('POST', `${a}/prompt-versions`, { label: 'l'.repeat(100) })).status).toBe(201);
    });
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

  it('refuses a private address through PATCH too', async () => {
    const created = await api<Envelope<Agent>>(t.url, 'POST', '/v1/agents', { key, body: BASE });
    for (const url of ['http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
      const res = await api<ErrorEnvelope>(t.url, 'PATCH', `/v1/agents/${created.body.data.id}`, {
        key,
        body: { webhook_config: { url } },
      });
      expect(res.status, url).toBe(422);
      expect(res.body.detail).toEqual([
        expect.objectContaining({ loc: ['body', 'webhook_config', 'url'], type: 'url_not_allowed' }),
      ]);
    }
    const after = await api<Envelope<Agent>>(t.url, 'GET', `/v1/agents/${created.body.data.id}`, { key });
    expect(after.body.data.webhook_config).toBeNull();
  });

  it('lists a private address next to the schema problems in one 422', async () => {
    const created = await api<Envelope<Agent>>(t.url, 'POST', '/v1/agents', { key, body: BASE });
    for (const [method, path] of [
      ['POST', '/v1/agents'],
      ['PATCH', `/v1/agents/${created.body.data.id}`],
    ] as const) {
      const res = await api<ErrorEnvelope>(t.url, method, path, {
        key,
        body: { ...BASE, name: '', webhook_config: { url: 'http://192.168.1.10/hook' } },
      });
      expect(res.status, method).toBe(422);
      const issues = res.body.detail as Issues;
      expect(
        issues.map((d) => d.loc.join('.')),
        method,
      ).toEqual(['body.name', 'body.webhook_config.url']);
      expect(issues[1]?.type).toBe('url_not_allowed');
    }
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

describe.each(infraModes())('webhook secrets in the logs (%s)', (mode) => {
  let t: TestPlatform;
  let key: string;
  beforeAll(async () => {
    t = await startTestPlatform(mode, { captureLogs: true, config: { LOG_LEVEL: 'debug' } });
    key = (await createAccount(t)).key;
  });
  afterAll(async () => t?.stop());

  it('never writes a webhook secret to the platform logs', async () => {
    const secrets = [
      'first-secret-value-0123456789',
      'second-secret-value-9876543210',
      'third-secret-xyz-00000',
    ];
    const send = (method: string, path: string, body?: unknown) =>
      api<Envelope<Agent> & ErrorEnvelope>(t.url, method, path, {
        key,
        ...(body === undefined ? {} : { body }),
      });
    const created = await send('POST', '/v1/agents', {
      ...BASE,
      webhook_config: { url: 'http://127.0.0.1:9/hook', secret: secrets[0] },
    });
    expect(created.status).toBe(201);
    const path = `/v1/agents/${created.body.data.id}`;
    expect(
      (await send('PATCH', path, { webhook_config: { url: 'http://127.0.0.1:9/h', secret: secrets[1] } }))
        .status,
    ).toBe(200);
    // Refused requests (by the schema with the service's check, and by the service) carry it too.
    expect(
      (
        await send('PATCH', path, {
          name: '',
          webhook_config: { url: 'ftp://x.example/h', secret: secrets[2] },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await send('PATCH', path, {
          voice: 'nobody',
          webhook_config: { url: 'http://127.0.0.1:9/h', secret: secrets[2] },
        })
      ).status,
    ).toBe(422);
    expect((await send('GET', path)).status).toBe(200);
    expect((await send('GET', '/v1/agents')).status).toBe(200);
    expect((await send('POST', `${path}/prompt-versions`)).status).toBe(201);
    const written = JSON.stringify(t.logs);
    // The logs did record this work, so the search below covers it.
    expect(t.logs.length).toBeGreaterThan(0);
    expect(written).toContain(created.body.data.id);
    for (const secret of secrets) expect(written).not.toContain(secret);
  });
});
