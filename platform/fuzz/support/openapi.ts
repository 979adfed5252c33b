/** The slice of JSON Schema the generated OpenAPI document uses. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  default?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export type Security = 'public' | 'key' | 'admin';

/** One REST operation of the document: what the fuzz needs to aim at it. */
export interface Operation {
  method: string;
  /** The path template, e.g. /v1/agents/{agent_id}. */
  template: string;
  security: Security;
  parameters: Parameter[];
  body: JsonSchema | undefined;
  bodyRequired: boolean;
}

interface RawOperation {
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** Inlines `#/components/schemas/...` references (recursive ones are cut at a depth). */
export function resolveRefs(schema: JsonSchema, doc: OpenApiDocument, depth = 0): JsonSchema {
  if (depth > 12) return {};
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    return target ? resolveRefs(target, doc, depth + 1) : {};
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, value]) => [key, resolveRefs(value, doc, depth + 1)]),
    );
  }
  if (schema.items) out.items = resolveRefs(schema.items, doc, depth + 1);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = resolveRefs(schema.additionalProperties, doc, depth + 1);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (schema[key]) out[key] = schema[key].map((item) => resolveRefs(item, doc, depth + 1));
  }
  return out;
}

/**
 * Every operation the gateway documents, read from its own OpenAPI document: a route added later
 * is fuzzed without touching the suite.
 */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      if (!METHODS.has(method)) continue;
      const schemes = (raw.security ?? []).flatMap((entry) => Object.keys(entry));
      const security: Security = schemes.includes('adminToken')
        ? 'admin'
        : schemes.length > 0
          ? 'key'
          : 'public';
      const json = raw.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        template,
        security,
        parameters: (raw.parameters ?? [])
          .filter((p): p is Parameter & { schema?: JsonSchema } => ['path', 'query', 'header'].includes(p.in))
          .map((p) => ({
            name: p.name,
            in: p.in as Parameter['in'],
            required: p.required ?? false,
            schema: resolveRefs(p.schema ?? {}, doc),
          })),
        body: json ? resolveRefs(json, doc) : undefined,
        bodyRequired: raw.requestBody?.required ?? false,
      });
    }
  }
  return operations;
}

/** The path parameters of a template, in order. */
export function pathParameters(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/** The template with each `{name}` replaced by its (already encoded) value. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? '');
}
