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

describe('OpenAPI document and docs UI', () => {
  let t: TestPlatform;
  let doc: OpenApiDoc;
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
