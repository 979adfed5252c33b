/**
 * Response headers every client can rely on, declared once as OpenAPI components and referenced
 * from each response of the generated document (the route schemas describe bodies only).
 */
type Doc = {
  paths?: Record<
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>
  >;
  components?: Record<string, unknown>;
};

const integer = { type: 'integer' };
const string = { type: 'string' };

const HEADERS = {
  'X-Request-Id': {
    description: 'The request id: the client-sent one when valid, else generated',
    schema: string,
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this key (or client IP)',
    schema: integer,
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: integer },
  'X-RateLimit-Reset': {
    description: 'Unix time in whole seconds at which the window ends',
    schema: integer,
  },
  'Retry-After': { description: 'Seconds until the window ends', schema: integer },
  'WWW-Authenticate': { description: 'Bearer', schema: string },
  ETag: { description: 'Strong validator of the data; send it back in If-None-Match', schema: string },
  'Cache-Control': { description: 'public, max-age=300', schema: string },
};

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

function headersFor(path: string, status: string): Record<string, unknown> {
  const names: (keyof typeof HEADERS)[] = [
    'X-Request-Id',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
  ];
  if (status === '429') names.push('Retry-After');
  if (status === '401') names.push('WWW-Authenticate');
  const cacheable =
    path.startsWith('/v1/industries') || path.startsWith('/v1/voices') || path === '/v1/ai-models';
  if (cacheable && (status === '200' || status === '304')) names.push('ETag', 'Cache-Control');
  return Object.fromEntries(names.map((name) => [name, ref(name)]));
}

export function withStandardHeaders<T extends Doc>(doc: T): T {
  doc.components = { ...doc.components, headers: HEADERS };
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = { ...response.headers, ...headersFor(path, status) };
      }
    }
  }
  return doc;
}
