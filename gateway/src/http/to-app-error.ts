import { STATUS_CODES } from 'node:http';
import { AppError, databaseUnavailable, type ErrorCode, fromDatabaseError, isAppError } from '@voice/shared';
import type { FastifyError } from 'fastify';
import { issuesFor, RequestValidationError } from './validation';

/** Fastify's own coded errors, in catalogue terms. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

const STATUS_CODES_TO_CATALOGUE: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'INVALID_STATE',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  416: 'RANGE_NOT_SATISFIABLE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_TIMEOUT',
};

/**
 * Every error, whatever its origin, as one AppError: the single place HTTP learns about failures.
 * A client error keeps its 4xx status with a neutral message; only our own faults become 500.
 */
export function toAppError(error: unknown, contentType: string | undefined): AppError {
  if (isAppError(error)) return error;
  if (error instanceof RequestValidationError) {
    const context = (error as RequestValidationError & { validationContext?: string }).validationContext;
    return AppError.validation(issuesFor(error, context));
  }
  const fromDatabase = fromDatabaseError(error);
  if (fromDatabase) return fromDatabase;
  const fastifyError = error as Partial<FastifyError> | undefined;
  const code = fastifyError?.code;
  const mapped = code ? FASTIFY_CODES[code] : undefined;
  if (mapped === 'UNSUPPORTED_MEDIA_TYPE') {
    return new AppError(
      mapped,
      `Content-Type ${contentType ?? '(none)'} is not supported; send application/json`,
    );
  }
  if (mapped) return new AppError(mapped);
  // Before the connection codes: a client that goes away mid-body is an ECONNRESET that Fastify
  // marks 400 (its fault, not the database's).
  const status = fastifyError?.statusCode;
  if (status && status >= 400 && status < 500) {
    return new AppError(
      STATUS_CODES_TO_CATALOGUE[status] ?? 'BAD_REQUEST',
      STATUS_CODES[status] ?? 'Bad request',
    );
  }
  // The gateway's own store (keys, idempotency) is down: a 503.
  return databaseUnavailable(error) ?? new AppError('INTERNAL');
}
