export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiRequest {
  key?: string | undefined;
  body?: unknown;
  /** Sent as is, with no JSON encoding (for malformed-body tests). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** Real HTTP against a started gateway; the body is parsed when it is JSON. */
export async function api<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  let body: string | Buffer | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface Envelope<T> {
  data: T;
  request_id: string;
  timestamp: string;
  success: boolean;
}

export interface ErrorEnvelope {
  detail: string | { loc: (string | number)[]; msg: string; type: string }[];
  request_id: string;
  timestamp: string;
  success: false;
}
