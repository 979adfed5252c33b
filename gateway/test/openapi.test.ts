import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../platform/test/support/harness';
import { api } from '../../platform/test/support/http';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
  components: {
    securitySchemes: Record<string, { type: string; scheme: string }>;
    schemas?: Record<string, unknown>;
  };
}

interface JsonSchema {
  type?: string | string[];
  description?: string;
  required?: string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
}

describe('OpenAPI document and docs UI', () => {
  let t: TestPlatform;
  let doc: OpenApiDoc;
  const schema = (name: string): JsonSchema => {
    const found = doc.components.schemas?.[name] as JsonSchema | undefined;
    if (!found) throw new Error(`no schema ${name}`);
    return found;
  };
  beforeAll(async () => {
    t = await startTestPlatform('embedded');
    const res = await api<OpenApiDoc>(t.url, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => t?.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares bearer security, with public endpoints marked public', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of [
      '/v1/health',
      '/v1/health/live',
      '/v1/industries',
      '/v1/industries/{industry}/agent-types',
      '/v1/voices',
      '/v1/voices/languages',
    ]) {
      expect(doc.paths[path]?.get?.security, path).toEqual([]);
    }
    expect(doc.paths['/v1/me']?.get?.security).toEqual([{ bearerAuth: [] }]);
    for (const [path, method] of [
      ['/v1/agents', 'get'],
      ['/v1/agents', 'post'],
      ['/v1/agents/{agent_id}', 'patch'],
      ['/v1/agents/{agent_id}/prompt-versions/{version_id}/restore', 'post'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('is generated from the route schemas, including error responses and named components', () => {
    const industries = doc.paths['/v1/industries']?.get?.responses ?? {};
    expect(Object.keys(industries)).toEqual(expect.arrayContaining(['200', '304', '429', '503', '504']));
    expect(Object.keys(doc.components.schemas ?? {})).toEqual(
      expect.arrayContaining(['Industry', 'Voice', 'Error']),
    );
    expect(doc.paths['/admin/accounts']?.post).toBeDefined();
    // Readiness: 503 carries the error shape and the report, whose status says unavailable.
    const health = doc.paths['/v1/health']?.get?.responses as Record<string, { content?: unknown }>;
    expect(JSON.stringify(health['503']?.content)).toMatch(/"detail".*"data"|"data".*"detail"/s);
    expect(JSON.stringify(health['503']?.content)).toContain('unavailable');
  });

  it('documents the standard response headers on every response', () => {
    const industries = doc.paths['/v1/industries']?.get?.responses as Record<
      string,
      { headers?: Record<string, unknown> }
    >;
    expect(Object.keys(industries['200']?.headers ?? {})).toEqual(
      expect.arrayContaining([
        'X-Request-Id',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'ETag',
      ]),
    );
    expect(Object.keys(industries['429']?.headers ?? {})).toContain('Retry-After');
    const me = doc.paths['/v1/me']?.get?.responses as Record<string, { headers?: Record<string, unknown> }>;
    expect(Object.keys(me['401']?.headers ?? {})).toContain('WWW-Authenticate');
  });

  it('says calls are simulated, and lists the simulated carrier\u2019s test numbers', () => {
    const paths = doc.paths as unknown as Record<string, Record<string, { description?: string }>>;
    const makeCall = paths['/v1/call']?.post?.description ?? '';
    const health = paths['/v1/health']?.get?.description ?? '';
    for (const text of [makeCall, health]) {
      expect(text).toMatch(/simulated/);
      expect(text).toContain(
        '0001 no_answer, 0002 busy, 0003 voicemail, 0004 failed; any other number completed',
      );
    }
    const healthSchema = schema('Health');
    expect(healthSchema.required).toContain('telephony');
    expect(JSON.stringify(healthSchema.properties?.telephony)).toContain('TelephonyProvider');
  });

  it('types the call record as the spec does: sentiment and recording_url never null, telephony always there', () => {
    const call = schema('Call');
    const props = call.properties ?? {};
    expect(call.required).toEqual(expect.arrayContaining(['sentiment', 'recording_url', 'telephony']));
    expect(props.recording_url).toMatchObject({ type: 'string' });
    expect(props.recording_url?.description).toContain('`""` when the call produced no audio');
    expect(props.sentiment).toMatchObject({ enum: ['positive', 'neutral', 'negative'] });
    expect(props.sentiment?.description).toContain('`neutral` when there was no conversation');
    expect(JSON.stringify(props.telephony)).toContain('CallTelephony');
    expect(props.ended_at?.description).toMatch(/wall-clock time .* never in the future/);
    expect(props.duration?.description).toMatch(/Wall-clock seconds from answered_at to ended_at/);
    const telephony = schema('CallTelephony');
    expect(telephony.required).toEqual(['carrier', 'trunk_id', 'sip_code', 'sip_reason']);
    expect(telephony.properties?.carrier).toMatchObject({ enum: ['simulated', 'sip'] });
    for (const answer of [
      'busy 486 Busy Here',
      'no_answer 480 Temporarily Unavailable',
      '487 Request Terminated',
    ]) {
      expect(telephony.description).toContain(answer);
    }
  });

  it('documents a webhook secret as any non-empty string of up to 256 characters', () => {
    const secret = schema('WebhookConfigUpdate').properties?.secret as Record<string, unknown>;
    expect(JSON.stringify(secret)).toContain('"minLength":1');
    expect(JSON.stringify(secret)).toContain('"maxLength":256');
    expect(secret.description).toMatch(/Any non-empty string of up to 256 characters; use 32 or more/);
  });

  it('serves Swagger UI from the package, with no CDN', async () => {
    const html = await api(t.url, 'GET', '/docs/');
    expect(html.status).toBe(200);
    expect(html.text).toContain('swagger');
    expect(html.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
    const bundle = await api(t.url, 'GET', '/docs/static/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });
});
