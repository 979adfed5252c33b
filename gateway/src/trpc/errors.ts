import type {
  TRPC_ERROR_CODE_KEY,
  TRPC_ERROR_CODE_NUMBER,
  TRPCDefaultErrorShape,
  TRPCError,
} from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { AppError, type ErrorCode, type ValidationIssue } from '@voice/shared';

/** The tRPC code and HTTP status of each status of the error catalogue: the one mapping of the surface. */
const BY_STATUS: Record<number, [TRPC_ERROR_CODE_KEY, number]> = {
  400: ['BAD_REQUEST', 400],
  401: ['UNAUTHORIZED', 401],
  403: ['FORBIDDEN', 403],
  404: ['NOT_FOUND', 404],
  405: ['METHOD_NOT_SUPPORTED', 405],
  409: ['CONFLICT', 409],
  413: ['PAYLOAD_TOO_LARGE', 413],
  415: ['UNSUPPORTED_MEDIA_TYPE', 415],
  // REST's 422 is tRPC's BAD_REQUEST, with the issues in `data.issues`.
  422: ['BAD_REQUEST', 400],
  429: ['TOO_MANY_REQUESTS', 429],
  503: ['SERVICE_UNAVAILABLE', 503],
  504: ['GATEWAY_TIMEOUT', 504],
};

/** Where REST locates a value; on this surface each of them is part of the procedure's input. */
const REQUEST_PARTS = new Set<unknown>(['body', 'query', 'path']);

/**
 * A 422's issues as this surface names them: `loc` starts with "input" even when a service or the
 * body parser, which speak REST's terms, said "body" (a header keeps "header").
 */
function inputIssues(detail: AppError['detail']): { issues?: ValidationIssue[] } {
  if (!Array.isArray(detail)) return {};
  return {
    issues: detail.map((issue) =>
      REQUEST_PARTS.has(issue.loc[0]) ? { ...issue, loc: ['input', ...issue.loc.slice(1)] } : issue,
    ),
  };
}

/** What `error.data` carries on this surface (the client sees it typed). */
export interface VoiceErrorData {
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  path?: string;
  /** The error catalogue's code (AGENT_NOT_FOUND, IDEMPOTENCY_KEY_REUSED, ...), when the API chose the error. */
  reason?: ErrorCode;
  /** Every problem with the input, as REST's 422 lists them (`loc` starts with "input"). */
  issues?: ValidationIssue[];
  request_id?: string;
}

export interface VoiceErrorShape {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: VoiceErrorData;
}

/** An error the API chose to answer (rather than a bug), wherever tRPC wrapped it. */
export function appErrorOf(error: TRPCError): AppError | undefined {
  return error.cause instanceof AppError ? error.cause : undefined;
}

/**
 * The tRPC error shape of any failure: an AppError (thrown by an operation, the edge's refusal, a
 * live stream) gets its tRPC code, HTTP status and message; tRPC's own errors (bad JSON, unknown
 * procedure, wrong method) keep theirs; anything else is an internal error without detail.
 */
export function formatError(
  shape: TRPCDefaultErrorShape,
  error: TRPCError,
  requestId: string | undefined,
): VoiceErrorShape {
  const base = {
    ...(shape.data.path === undefined ? {} : { path: shape.data.path }),
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
  const appError = appErrorOf(error);
  if (appError) {
    const [code, httpStatus] = BY_STATUS[appError.status] ?? ['INTERNAL_SERVER_ERROR', 500];
    const internal = code === 'INTERNAL_SERVER_ERROR';
    return {
      message: internal ? 'Internal server error' : appError.message,
      code: TRPC_ERROR_CODES_BY_KEY[code],
      data: {
        code,
        httpStatus,
        ...base,
        ...(internal ? {} : { reason: appError.code }),
        ...inputIssues(appError.detail),
      },
    };
  }
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    return {
      message: 'Internal server error',
      code: shape.code,
      data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, ...base },
    };
  }
  return {
    message: shape.message,
    code: shape.code,
    data: { code: shape.data.code, httpStatus: shape.data.httpStatus, ...base },
  };
}

/**
 * A failure Fastify meets before tRPC runs (a body it cannot parse, a Content-Type it has no
 * parser for, a body over the limit) as tRPC's own error response: status and `{ error }`.
 */
export function requestErrorResponse(
  appError: AppError,
  requestId: string,
): { status: number; body: { error: VoiceErrorShape } } {
  const [code, httpStatus] = BY_STATUS[appError.status] ?? ['INTERNAL_SERVER_ERROR', 500];
  const internal = code === 'INTERNAL_SERVER_ERROR';
  return {
    status: httpStatus,
    body: {
      error: {
        message: internal ? 'Internal server error' : appError.message,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        data: {
          code,
          httpStatus,
          request_id: requestId,
          ...(internal ? {} : { reason: appError.code }),
          ...inputIssues(appError.detail),
        },
      },
    },
  };
}

/** Whether a failure is worth an error log line: a bug, or a backing service failing. */
export function isUnexpected(error: TRPCError): boolean {
  const appError = appErrorOf(error);
  if (appError) return appError.status >= 500 && appError.code !== 'SHUTTING_DOWN';
  return error.code === 'INTERNAL_SERVER_ERROR';
}
