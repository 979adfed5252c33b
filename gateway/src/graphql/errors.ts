import { AppError, type ValidationIssue } from '@voice/shared';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';

/** extensions.code per HTTP status of the error catalogue: one mapping for the whole surface. */
const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'BAD_USER_INPUT',
  422: 'BAD_USER_INPUT',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_TIMEOUT',
};

const camel = (key: string | number) =>
  typeof key === 'number' ? key : key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A 422's issues as GraphQL names them: `loc` in camelCase, and the list of fields at fault. */
function inputIssues(issues: ValidationIssue[]) {
  const named = issues.map((issue) => ({ ...issue, loc: issue.loc.map(camel) }));
  const fields = [...new Set(named.map((issue) => issue.loc.slice(1).join('.')).filter(Boolean))];
  return { issues: named, fields };
}

/**
 * Any error a resolver meets, as the client sees it: an AppError keeps its message and gets its
 * code and its catalogue code as `reason` (BAD_USER_INPUT lists the fields); a GraphQLError passes through; anything else is an
 * internal error with no detail (it is logged by the caller).
 */
export function toGraphQLError(error: unknown, http = false): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (error instanceof AppError) {
    const code = CODES[error.status] ?? (error.status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR');
    const extra = Array.isArray(error.detail) ? inputIssues(error.detail) : {};
    const message = typeof error.detail === 'string' ? error.detail : error.message;
    // `reason`: the error catalogue's code (AGENT_NOT_FOUND, ...), as tRPC's data.reason.
    const reason = code === 'INTERNAL_SERVER_ERROR' ? {} : { reason: error.code };
    return new GraphQLError(message, {
      extensions: { code, ...reason, ...extra, ...(http ? { http: { status: error.status } } : {}) },
    });
  }
  return new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** Whether an error is one the service chose to answer (else it is a bug, worth a log line). */
export function isExpected(error: unknown): boolean {
  return error instanceof AppError || error instanceof GraphQLError;
}

/**
 * Apollo's formatError: a few request errors Apollo raises itself carry a 4xx HTTP status but no
 * code (a persisted query whose hash does not match its query), which Apollo would then call
 * INTERNAL_SERVER_ERROR. The client's mistake is a BAD_REQUEST.
 */
export function formatApolloError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR' || !(error instanceof GraphQLError))
    return formatted;
  const status = (error.extensions.http as { status?: number } | undefined)?.status;
  if (status === undefined || status >= 500) return formatted;
  return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_REQUEST' } };
}
