import type { CallContext } from '@voice/shared';
import type { FastifyRequest } from 'fastify';

const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;

/** What a service needs to know about the HTTP request that caused its work. */
export function callContext(request: FastifyRequest): CallContext {
  const traceparent = request.headers.traceparent;
  return {
    requestId: request.id,
    accountId: request.principal?.accountId,
    traceparent: typeof traceparent === 'string' && TRACEPARENT.test(traceparent) ? traceparent : undefined,
  };
}
