import type { FastifyRequest } from 'fastify';
import { authorizationParam, type CarriedAuthorization } from '../auth/carried-key';

/** Where tRPC clients put `connectionParams` over HTTP (httpSubscriptionLink): JSON in the query. */
const PARAM = 'connectionParams';

/**
 * The key a tRPC request carries in its `connectionParams` (for EventSource, which cannot send
 * headers). JSON that does not parse carries none here: tRPC answers it (PARSE_ERROR).
 */
export function connectionParamsKey(request: FastifyRequest): CarriedAuthorization {
  const raw = (request.query as Record<string, unknown> | undefined)?.[PARAM];
  if (typeof raw !== 'string') return { value: undefined };
  let params: unknown;
  try {
    params = JSON.parse(raw);
  } catch {
    return { value: undefined };
  }
  return authorizationParam(params);
}

/** A URL fit for a log line: the value of a `connectionParams` parameter (it may hold a key) hidden. */
export function loggableUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url.slice(start + 1);
  // Most URLs: no need to parse (a percent-encoded name is decoded by the parsers that read it).
  if (!query.includes(PARAM) && !query.includes('%')) return url;
  const params = new URLSearchParams(query);
  if (!params.has(PARAM)) return url;
  params.set(PARAM, '[redacted]');
  return `${url.slice(0, start)}?${params.toString()}`;
}
