import { AppError, type ErrorCode, isAppError, type ValidationIssue } from '@voice/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from '../http/envelope';
import { issuesFor, RequestValidationError } from '../http/validation';

/** Fastify's own coded errors, in catalogue terms. Anything unlisted falls back on its status. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'INVALID_STATE',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
  504: 'SERVICE_TIMEOUT',
};

/** Database connection failures: the gateway's own store is down, which is a 503, not a 500. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P03',
]);

const JSON_BODY_ERRORS = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY']);

/** Every error, whatever its origin, as one AppError: the single place HTTP learns about failures. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (isAppError(error)) return error;
  if (error instanceof RequestValidationError) {
    const context = (error as RequestValidationError & { validationContext?: string }).validationContext;
    return AppError.validation(issuesFor(error, context));
  }
  const fastifyError = error as Partial<FastifyError> | undefined;
  const code = fastifyError?.code;
  if ((code && JSON_BODY_ERRORS.has(code)) || error instanceof SyntaxError) {
    const issue: ValidationIssue = {
      loc: ['body'],
      msg:
        code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'Body is empty but Content-Type is application/json'
          : 'Body is not valid JSON',
      type: 'json_invalid',
    };
    return AppError.validation([issue]);
  }
  if (code && FASTIFY_CODES[code]) {
    const mapped = FASTIFY_CODES[code];
    if (mapped === 'UNSUPPORTED_MEDIA_TYPE') {
      return new AppError(
        mapped,
        `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json`,
      );
    }
    return new AppError(mapped);
  }
  if (code && UNAVAILABLE_CODES.has(code))
    return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable');
  const status = fastifyError?.statusCode;
  if (status && status >= 400 && status < 500 && STATUS_CODES[status])
    return new AppError(STATUS_CODES[status]);
  return new AppError('INTERNAL');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="voice-api"');
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(request, error.detail));
}

/** Maps every failure to decisions.md's error envelope; 5xx are logged in full, answered without internals. */
export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error, request);
      if (appError.status >= 500) {
        request.log.error({ err: error, code: appError.code }, 'request failed');
      } else if (appError.code === 'UNSUPPORTED_MEDIA_TYPE' || appError.code === 'PAYLOAD_TOO_LARGE') {
        request.log.info({ code: appError.code }, 'request refused');
      }
      return sendError(request, reply, appError);
    });
    app.setNotFoundHandler((request, reply) => {
      sendError(
        request,
        reply,
        new AppError(
          'ROUTE_NOT_FOUND',
          `No endpoint ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}`,
        ),
      );
    });
  },
  { name: 'errors' },
);
