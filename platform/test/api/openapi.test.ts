import { Validator } from '@seriousme/openapi-schema-validator';
import { CallEndedData, PAGE_MAX, PAGE_SIZE_MAX, WEBHOOK_HEADERS } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationId } from '../../../gateway/src/http/openapi-operation';
import { OPERATIONS } from '../../../gateway/src/operations/catalogue';
import { serversFor } from '../../../gateway/src/plugins/openapi';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';
import { redoclyLint } from './redocly-support';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

interface OperationObject {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  responses: Record<string, { description?: string }>;
}

interface OpenApiDoc {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  webhooks?: Record<string, Record<string, OperationObject>>;
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
  /** A schema, or the component its `$ref` names. */
  const deref = (found: (JsonSchema & { $ref?: string }) | undefined): JsonSchema => {
    if (!found) throw new Error('no schema');
    return found.$ref ? deref(schema(found.$ref.replace('#/components/schemas/', ''))) : found;
  };
  /** Every operation of the document, with where it is. */
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ path, method, operation })),
    );

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
        '0001 no_answer, 0002 busy, 0003 voicemail, 0004 failed, 0005 completed (the callee opts out); ' +
          'any other number completed',
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

  it('names every operation with a unique operationId, the catalogue operation\u2019s where it has one', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const name of Object.keys(OPERATIONS)) expect(ids).toContain(operationId(name));
    expect(doc.paths['/v1/agents']?.post?.operationId).toBe('agentsCreate');
    expect(doc.paths['/v1/agents/{agent_id}/prompt-versions']?.get?.operationId).toBe('agentsVersionsList');
    expect(doc.paths['/v1/agents/{agent_id}/webhook-test']?.post?.operationId).toBe('webhooksSendTest');
    expect(doc.paths['/admin/api-keys/{key_id}']?.delete?.operationId).toBe('adminApiKeysRevoke');
  });

  it('names its server: the configured public URL, else the one it was fetched from', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(serversFor('https://voice.example.com/')).toEqual([
      { url: 'https://voice.example.com', description: expect.any(String) },
    ]);
  });

  it('types page and page_size as integers with their bounds and defaults', () => {
    const paged = operations().filter(({ operation }) =>
      operation.parameters?.some((p) => p.name === 'page'),
    );
    expect(paged.length).toBeGreaterThanOrEqual(8);
    for (const { path, operation } of paged) {
      const schemaOf = (name: string) => operation.parameters?.find((p) => p.name === name)?.schema;
      expect(schemaOf('page'), path).toEqual({ type: 'integer', minimum: 1, maximum: PAGE_MAX, default: 1 });
      expect(schemaOf('page_size'), path).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: PAGE_SIZE_MAX,
        default: 20,
      });
    }
  });

  it('offers cursor paging on every paged operation: a cursor parameter, next_cursor and total_exact', () => {
    const paged = operations().filter(({ operation }) =>
      operation.parameters?.some((p) => p.name === 'page'),
    );
    for (const { path, operation } of paged) {
      const cursor = operation.parameters?.find((p) => p.name === 'cursor');
      expect(cursor, path).toMatchObject({ in: 'query', schema: { type: 'string', maxLength: 512 } });
      expect(cursor?.schema.description ?? (cursor as { description?: string }).description, path).toMatch(
        /next_cursor/,
      );
      const envelope = deref(
        (operation.responses['200'] as { content?: Record<string, { schema: JsonSchema }> }).content?.[
          'application/json'
        ]?.schema,
      );
      const page = deref(envelope.properties?.data);
      expect(page.required, path).toEqual(expect.arrayContaining(['total', 'total_exact', 'next_cursor']));
      expect(deref(page.properties?.next_cursor).type, path).toEqual(['string', 'null']);
      expect(deref(page.properties?.total_exact).type, path).toBe('boolean');
    }
  });

  it('declares, with a description, every tag its operations use', () => {
    const declared = new Map((doc.tags ?? []).map((tag) => [tag.name, tag.description]));
    const used = [...operations(), ...Object.values(doc.webhooks ?? {}).flatMap((w) => Object.values(w))]
      .map((entry) => ('operation' in entry ? entry.operation : entry))
      .flatMap((operation) => operation.tags ?? []);
    expect(used.length).toBeGreaterThan(0);
    for (const tag of used) expect(declared.get(tag), tag).toEqual(expect.stringMatching(/\S/));
  });

  it('describes every response, none as "Default Response"', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${method} ${path} ${status}`).toMatch(/\S/);
        expect(response.description).not.toBe('Default Response');
      }
    }
  });

  it('keeps one component per schema shape, each one used', () => {
    const schemas = doc.components.schemas ?? {};
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
    const reached = new Set<string>();
    const visit = (json: string) => {
      for (const [, name] of json.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        if (name === undefined || reached.has(name)) continue;
        reached.add(name);
        visit(JSON.stringify(schemas[name]));
      }
    };
    visit(text);
    expect(Object.keys(schemas).filter((name) => !reached.has(name))).toEqual([]);
    // An input shape is kept beside its output one only when they differ (e.g. defaults made optional).
    for (const name of Object.keys(schemas).filter((n) => n.endsWith('Input'))) {
      const output = schemas[name.slice(0, -'Input'.length)];
      expect(output, name).toBeDefined();
      expect(JSON.stringify(schemas[name])).not.toBe(JSON.stringify(output));
    }
    // Request bodies use the names of their contracts.
    expect(doc.paths['/v1/agents']?.post?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/CreateAgent',
    });
  });

  it('shows an example on every request body', () => {
    const withBody = operations().filter(({ operation }) => operation.requestBody);
    expect(withBody.length).toBeGreaterThanOrEqual(9);
    for (const { path, method, operation } of withBody) {
      expect(operation.requestBody?.content['application/json']?.example, `${method} ${path}`).toBeDefined();
    }
  });

  it('describes the CALL_ENDED delivery as an OpenAPI 3.1 webhook, its body fully typed', () => {
    const post = doc.webhooks?.CALL_ENDED?.post;
    expect(post?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/CallEndedPayload',
    });
    expect(JSON.stringify(schema('CallEndedPayload').properties?.data)).toContain('CallEndedData');
    const data = schema('CallEndedData');
    expect(Object.keys(data.properties ?? {}).sort()).toEqual(Object.keys(CallEndedData.shape).sort());
    expect(data.required?.sort()).toEqual(Object.keys(CallEndedData.shape).sort());
    const props = data.properties ?? {};
    expect(props.status?.enum).toEqual(['completed', 'no_answer', 'failed', 'voicemail', 'busy']);
    for (const field of ['call_summary', 'started_at', 'ended_at', 'recording_url']) {
      expect(props[field]?.type, field).toBe('string');
    }
    expect(props.call_end_reason?.enum).toContain('conversation_completed');
    expect(props.ended_by?.enum).toEqual(['agent', 'user', 'system', 'carrier']);
    expect(JSON.stringify(props.details_collection)).toContain('DetailsCollection');
    expect(JSON.stringify(props.telephony)).toContain('CallTelephony');
    const headers = new Map(post?.parameters?.map((p) => [p.name, p]));
    for (const name of Object.values(WEBHOOK_HEADERS)) expect(headers.get(name)?.in, name).toBe('header');
    expect(headers.get(WEBHOOK_HEADERS.eventId)?.required).toBe(true);
    expect(headers.get(WEBHOOK_HEADERS.signature)?.required).toBe(false);
    expect(Object.keys(post?.responses ?? {})).toContain('2XX');
  });

  it('documents a SIP trunk\u2019s password as write-only: in the bodies, never in an answer', () => {
    const answered = schema('SipTrunk').properties ?? {};
    expect(answered).not.toHaveProperty('password');
    expect(answered.has_password?.type).toBe('boolean');
    expect(schema('CreateSipTrunk').properties).toHaveProperty('password');
    expect(schema('UpdateSipTrunk').properties).toHaveProperty('password');
    expect(doc.paths['/v1/sip-trunks/{trunk_id}']).toHaveProperty('patch');
  });

  it('passes `redocly lint` with the recommended rules: no errors, and no warning but the license', async () => {
    const report = await redoclyLint(doc);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    // The project states no license, so the document names none (info-license).
    expect(report.problems.map((p) => p.ruleId)).toEqual(['info-license']);
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
