import type { AppError } from '@voice/shared';
import type { FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps';
import { callContext } from '../http/context';
import type { Caller } from '../operations/operation';

/** What every procedure gets: the gateway's deps, who is asking, and why the edge would refuse them. */
export interface TrpcContext {
  deps: GatewayDeps;
  caller: Caller;
  /** A bad key or a spent budget, seen by the edge and answered here in tRPC's format. */
  refusal: AppError | undefined;
  requestId: string;
  /** Aborted when the gateway starts closing: live streams end, so the close is not held open. */
  closing: AbortSignal;
}

/** The context of one HTTP request (a batch shares it, and so its Idempotency-Key). */
export function createContext(deps: GatewayDeps, request: FastifyRequest, closing: AbortSignal): TrpcContext {
  const idempotencyKey = request.headers['idempotency-key'];
  return {
    deps,
    refusal: request.surfaceRefusal,
    requestId: request.id,
    closing,
    caller: {
      principal: request.principal,
      context: callContext(request),
      ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
    },
  };
}
