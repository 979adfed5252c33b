import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api, type Envelope, type ErrorEnvelope } from '../support/http';

interface Industry {
  id: string;
  name: string;
  agent_type_count: number;
}
interface AgentType {
  id: string;
  category: string;
  industry: string | null;
  collects: { name: string; type: string; description: string }[];
}

describe.each(infraModes())('discovery endpoints (%s)', (mode) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(mode);
  });
  afterAll(async () => t?.stop());

  it('lists at least 8 industries, publicly', async () => {
    const res = await api<Envelope<Industry[]>>(t.url, 'GET', '/v1/industries');
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(8);
    expect(res.body.data.map((i) => i.id)).toContain('real_estate');
  });

  it("lists each industry's own types (3 or more, each declaring what it collects) plus the general types", async () => {
    const industries = (await api<Envelope<Industry[]>>(t.url, 'GET', '/v1/industries')).body.data;
    for (const industry of industries) {
      const res = await api<Envelope<AgentType[]>>(t.url, 'GET', `/v1/industries/${industry.id}/agent-types`);
      expect(res.status).toBe(200);
      const own = res.body.data.filter((a) => a.category === 'industry');
      expect(own.length).toBeGreaterThanOrEqual(3);
      expect(own.length).toBe(industry.agent_type_count);
      for (const type of own) {
        expect(type.industry).toBe(industry.id);
        expect(type.id.startsWith(`${industry.id}_`)).toBe(true);
        expect(type.collects.length).toBeGreaterThan(0);
      }
      const general = res.body.data.filter((a) => a.category === 'general').map((a) => a.id);
      expect(general.sort()).toEqual(
        [
          'appointment_booking',
          'cold_calling',
          'collection',
          'compliance',
          'custom',
          'retention',
          'sales',
          'support',
        ].sort(),
      );
    }
  });

  it('finds an industry by its URL-encoded display name', async () => {
    const res = await api<Envelope<AgentType[]>>(t.url, 'GET', '/v1/industries/Real%20Estate/agent-types');
    expect(res.status).toBe(200);
    expect(res.body.data.map((a) => a.id)).toContain('real_estate_lead_qualifier');
  });

  it('answers 404 for an unknown industry', async () => {
    const res = await api<ErrorEnvelope>(
      t.url,
      'GET',
      '/v1/industries/underwater_basket_weaving/agent-types',
    );
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('Unknown industry');
  });

  it('lists at least 12 voices and 12 languages, each voice speaking known languages', async () => {
    const voices = await api<
      Envelope<{ id: string; gender: string; accent: string; languages: string[]; provider: string }[]>
    >(t.url, 'GET', '/v1/voices');
    const languages = await api<Envelope<{ code: string; name: string; native_name: string }[]>>(
      t.url,
      'GET',
      '/v1/voices/languages',
    );
    expect(voices.body.data.length).toBeGreaterThanOrEqual(12);
    expect(languages.body.data.length).toBeGreaterThanOrEqual(12);
    const codes = new Set(languages.body.data.map((l) => l.code));
    for (const voice of voices.body.data)
      for (const code of voice.languages) expect(codes.has(code)).toBe(true);
  });

  it('lists AI models with exactly one default', async () => {
    const res = await api<Envelope<{ id: string; default: boolean }[]>>(t.url, 'GET', '/v1/ai-models');
    expect(res.status).toBe(200);
    expect(res.body.data.filter((m) => m.default)).toHaveLength(1);
  });

  it('sends Cache-Control and a stable ETag, and 304 on If-None-Match', async () => {
    for (const path of [
      '/v1/industries',
      '/v1/voices',
      '/v1/voices/languages',
      '/v1/industries/healthcare/agent-types',
    ]) {
      const first = await api(t.url, 'GET', path);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(first.headers.get('cache-control')).toContain('max-age');
      const second = await api(t.url, 'GET', path);
      expect(second.headers.get('etag')).toBe(etag);
      const cached = await api(t.url, 'GET', path, { headers: { 'if-none-match': etag! } });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      expect(cached.headers.get('etag')).toBe(etag);
      const stale = await api(t.url, 'GET', path, { headers: { 'if-none-match': '"something-else"' } });
      expect(stale.status).toBe(200);
    }
  });

  it('gives different agent-type lists different ETags', async () => {
    const a = await api(t.url, 'GET', '/v1/industries/healthcare/agent-types');
    const b = await api(t.url, 'GET', '/v1/industries/real_estate/agent-types');
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
  });
});
