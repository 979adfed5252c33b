import { AppError } from '@voice/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ErrorBody, errorBody } from '../http/envelope';
import { toAppError } from '../http/to-app-error';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  return reply.send(prepareError(request, reply, error));
}

/** Sets an error answer's status and headers on `reply`; returns its body, for whoever sends it. */
export function prepareError(request: FastifyRequest, reply: FastifyReply, error: AppError): ErrorBody {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="voice-api"');
  reply.code(error.status).header('x-request-id', request.id).type('application/json; charset=utf-8');
  return errorBody(request, error.detail);
}

/**
 * Maps every failure to the documented error envelope (docs/api-guide.md); 5xx are logged in full,
 * answered without internals.
 */
export const errorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error, request, reply) => {
      const appError = toAppError(error, request.headers['content-type']);
      if (appError.status >= 500 && appError.code !== 'SHUTTING_DOWN') {
        request.log.error({ err: error, code: appError.code }, 'request failed');
      }
      return sendError(request, reply, appError);
    });
    // Reached only by routes the edge let through (it answers unknown routes itself, before the body).
    app.setNotFoundHandler((request, reply) => {
      sendError(request, reply, new AppError('ROUTE_NOT_FOUND', `No endpoint ${request.method}`));
    });
  },
  { name: 'errors' },
);
