import type { FastifyReply, FastifyRequest } from 'fastify';
import { budgetOf, chargeWeight } from '../rate-limit/charge';
import type { RateLimiter } from '../rate-limit/limiter';
import type { TrpcContext } from './context';

/**
 * A batch counts as one request per call: the edge charged the first before the body was read,
 * the rest are charged here, all or nothing, before any call runs. Refused, every call of the
 * batch answers TOO_MANY_REQUESTS (the context's refusal) and none runs.
 */
export async function chargeBatch(
  limiter: RateLimiter,
  context: TrpcContext,
  request: FastifyRequest,
  reply: FastifyReply,
  calls: number,
): Promise<TrpcContext> {
  if (context.refusal || calls <= 1) return context;
  const charge = await chargeWeight(
    limiter,
    budgetOf(request.principal, request.ip),
    calls,
    'call in the batch',
  );
  reply.headers(charge.headers);
  if (!charge.refusal) return context;
  reply.header('retry-after', charge.state.retryAfter);
  return { ...context, refusal: charge.refusal };
}
