import { graphqlBoundProblems } from './graphql-bounds';
import type { FuzzResponse, Outcome } from './transport';

/** Which error format a path's answers take. */
export type Surface = 'rest' | 'graphql' | 'trpc';

export function surfaceOf(target: string): Surface {
  const path = target.split('?')[0] ?? '';
  if (path === '/graphql') return 'graphql';
  if (path.startsWith('/trpc/')) return 'trpc';
  return 'rest';
}

const LOCATIONS = new Set(['body', 'query', 'path', 'header']);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** What must never reach a client: stack frames, file paths, SQL. */
const INTERNALS = /\n\s+at |node_modules|\/work\/|\.ts:\d+|SELECT |INSERT INTO|syntax error at or near/;

function header(response: FuzzResponse, name: string): string | undefined {
  return response.headers[name]?.[0];
}

function parseJson(response: FuzzResponse): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(response.body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The error envelope (docs/api-guide.md): `{ detail, request_id, timestamp, success: false }`, nothing else. */
export function envelopeProblems(response: FuzzResponse): string[] {
  const problems: string[] = [];
  const type = header(response, 'content-type') ?? '';
  if (!type.startsWith('application/json')) problems.push(`error content-type is ${JSON.stringify(type)}`);
  const parsed = parseJson(response);
  if (!parsed.ok) return [...problems, 'error body is not JSON'];
  const body = parsed.value;
  if (!isRecord(body)) return [...problems, 'error body is not an object'];
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'detail,request_id,success,timestamp') problems.push(`error body keys are ${keys}`);
  if (body.success !== false) problems.push('error body success is not false');
  if (typeof body.request_id !== 'string' || body.request_id !== header(response, 'x-request-id')) {
    problems.push('error body request_id does not match X-Request-Id');
  }
  if (typeof body.timestamp !== 'string' || !TIMESTAMP.test(body.timestamp)) problems.push('bad timestamp');
  if (response.status === 422) {
    const issues = body.detail;
    if (!Array.isArray(issues) || issues.length === 0) problems.push('422 detail is not a non-empty list');
    else {
      for (const issue of issues) {
        if (
          !isRecord(issue) ||
          Object.keys(issue).sort().join(',') !== 'loc,msg,type' ||
          !Array.isArray(issue.loc) ||
          !LOCATIONS.has(issue.loc[0] as string) ||
          !issue.loc.every((part) => typeof part === 'string' || typeof part === 'number') ||
          typeof issue.msg !== 'string' ||
          typeof issue.type !== 'string'
        ) {
          problems.push(`bad 422 issue ${JSON.stringify(issue).slice(0, 200)}`);
          break;
        }
      }
    }
  } else if (typeof body.detail !== 'string' || body.detail.length === 0) {
    problems.push(`${response.status} detail is not a string`);
  }
  if (INTERNALS.test(JSON.stringify(body.detail))) problems.push('detail leaks internals');
  return problems;
}

/** The success envelope of a JSON answer: `{ data, request_id, timestamp, success: true }`. */
function successProblems(response: FuzzResponse): string[] {
  const type = header(response, 'content-type') ?? '';
  if (!type.startsWith('application/json') || response.body.length === 0) return [];
  const parsed = parseJson(response);
  if (!parsed.ok) return ['JSON success body does not parse'];
  const body = parsed.value;
  if (!isRecord(body)) return ['success body is not an object'];
  // The OpenAPI document itself is the one JSON answer that is not in the envelope.
  if ('openapi' in body) return [];
  if (body.success !== true || !('data' in body) || body.request_id !== header(response, 'x-request-id')) {
    return ['success body is not the envelope'];
  }
  return [];
}

function graphqlProblems(response: FuzzResponse, method: string): string[] {
  const type = header(response, 'content-type') ?? '';
  // GraphiQL, for a browser's GET.
  if (method === 'GET' && response.status === 200 && type.startsWith('text/html')) return [];
  if (!/^application\/(graphql-response\+)?json/.test(type))
    return [`GraphQL content-type is ${JSON.stringify(type)}`];
  const parsed = parseJson(response);
  if (!parsed.ok || !isRecord(parsed.value)) return ['GraphQL body is not a JSON object'];
  const body = parsed.value;
  if (response.status >= 400 || 'errors' in body) {
    const errors = body.errors;
    if (!Array.isArray(errors) || errors.length === 0) return [`GraphQL ${response.status} without errors[]`];
    for (const error of errors) {
      const code = isRecord(error) && isRecord(error.extensions) ? error.extensions.code : undefined;
      if (!isRecord(error) || typeof error.message !== 'string' || typeof code !== 'string') {
        return [`GraphQL error without message / extensions.code: ${JSON.stringify(error).slice(0, 200)}`];
      }
      if (code === 'INTERNAL_SERVER_ERROR') return [`GraphQL INTERNAL_SERVER_ERROR: ${error.message}`];
      if (INTERNALS.test(error.message)) return ['GraphQL error leaks internals'];
    }
  } else if (!('data' in body)) return ['GraphQL 200 without data'];
  return [];
}

function trpcProblems(response: FuzzResponse): string[] {
  const parsed = parseJson(response);
  if (!parsed.ok) return ['tRPC body is not JSON'];
  const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  let errors = 0;
  for (const item of items) {
    if (!isRecord(item)) return ['tRPC item is not an object'];
    if ('result' in item) continue;
    const error = item.error;
    const data = isRecord(error) ? error.data : undefined;
    if (
      !isRecord(error) ||
      typeof error.message !== 'string' ||
      typeof error.code !== 'number' ||
      !isRecord(data) ||
      typeof data.code !== 'string' ||
      typeof data.httpStatus !== 'number'
    ) {
      return [`not tRPC's error shape: ${JSON.stringify(item).slice(0, 200)}`];
    }
    if (data.httpStatus >= 500) return [`tRPC ${data.code} (${data.httpStatus}): ${error.message}`];
    if (INTERNALS.test(error.message)) return ['tRPC error leaks internals'];
    errors++;
  }
  if (response.status >= 400 && errors === 0) return [`tRPC ${response.status} without an error`];
  return [];
}

/** The headers every answer carries (docs/api-guide.md): request id and the rate-limit trio. */
function headerProblems(response: FuzzResponse): string[] {
  const problems: string[] = [];
  if (!header(response, 'x-request-id')) problems.push('no X-Request-Id');
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    if (!/^\d+$/.test(header(response, name) ?? '')) problems.push(`no ${name}`);
  }
  if (response.status === 429 && !header(response, 'retry-after')) problems.push('429 without Retry-After');
  return problems;
}

export interface Sent {
  method: string;
  target: string;
  /** Sent over a bare socket: the server's HTTP parser may answer before any route is known. */
  raw?: boolean;
  /** Raw bytes that may end mid-request: the server may wait for the rest and close when we give up. */
  incomplete?: boolean;
  /** Pipelined raw requests: the target of each, in order (the answers come in that order). */
  targets?: string[];
  /** The request's body (not for raw bytes). */
  body?: Buffer | undefined;
}

/** Everything wrong with one exchange; empty when the gateway behaved. */
export function judge(sent: Sent, outcome: Outcome): string[] {
  switch (outcome.kind) {
    case 'unsendable':
      return [];
    case 'hang':
      return [
        `no complete answer within ${outcome.ms} ms (hang); got ${JSON.stringify(outcome.partial.slice(0, 120))}`,
      ];
    case 'closed':
      if (sent.incomplete && outcome.partial === '') return [];
      return [
        `connection closed without an answer (${outcome.error ?? 'EOF'}); got ${JSON.stringify(outcome.partial.slice(0, 120))}`,
      ];
    default:
      break;
  }
  const problems: string[] = [];
  let answered = 0;
  for (const response of outcome.responses) {
    const surface = surfaceOf(sent.targets?.[answered] ?? sent.target);
    if (response.status >= 200) answered++;
    if (response.status >= 500 || response.status < 100) {
      problems.push(`status ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`);
      continue;
    }
    if (response.status < 200) continue;
    problems.push(...headerProblems(response));
    if (outcome.kind === 'stream' || sent.method === 'HEAD') continue;
    const envelope = response.status >= 400 ? envelopeProblems(response) : ['not an error'];
    // Node's HTTP parser refuses some requests (431: headers or URL too large) before any route
    // is known: those are in the envelope whatever the path.
    const beforeRouting = sent.raw || response.status === 431;
    if (surface === 'rest' || (beforeRouting && envelope.length === 0)) {
      if (response.status >= 400) {
        problems.push(...envelope);
        if (response.status === 401 && !header(response, 'www-authenticate'))
          problems.push('401 without WWW-Authenticate');
      } else problems.push(...successProblems(response));
    } else if (surface === 'graphql') {
      problems.push(...graphqlProblems(response, sent.method));
      if (!sent.raw) problems.push(...graphqlBoundProblems(sent, response));
    } else problems.push(...trpcProblems(response));
  }
  return problems;
}
