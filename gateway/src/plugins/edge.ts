import { AppError, type Principal, PUBLIC_RATE_LIMIT_PER_IP } from '@voice/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AccountStore } from '../auth/account-store';
import { parseBearer, sameSecret } from '../auth/keys';
import { PUBLIC, type RouteAuth } from '../http/route-auth';
import type { RateLimiter, RateLimitState } from '../rate-limit/limiter';

export interface EdgeOptions {
  accounts: AccountStore;
  limiter: RateLimiter;
  adminToken: string | undefined;
}

const UNAUTHORIZED_DETAIL = {
  missing: 'Missing API key: send Authorization: Bearer <API_KEY>',
  malformed: 'Malformed Authorization header: expected Bearer <API_KEY>',
  unknown: 'Invalid API key',
  revoked: 'This API key has been revoked',
} as const;

type Identity = { principal: Principal } | { failure: AppError } | { admin: true } | { anonymous: true };

async function identify(request: FastifyRequest, auth: RouteAuth, options: EdgeOptions): Promise<Identity> {
  if (auth.kind === 'public') return { anonymous: true };
  const bearer = parseBearer(request.headers.authorization);
  if (!bearer.ok) return { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[bearer.reason]) };
  if (auth.kind === 'admin') {
    const valid = options.adminToken !== undefined && sameSecret(bearer.token, options.adminToken);
    return valid ? { admin: true } : { failure: new AppError('UNAUTHORIZED', 'Invalid admin token') };
  }
  const result = await options.accounts.authenticate(bearer.token);
  return result.ok
    ? { principal: result.principal }
    : { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[result.reason]) };
}

function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply.header('x-ratelimit-limit', state.limit);
  reply.header('x-ratelimit-remaining', state.remaining);
  reply.header('x-ratelimit-reset', state.resetAt);
}

/**
 * The edge, in order: who is calling, charge their budget (per key, or per client IP for public
 * and unauthenticated requests), then refuse with 429, 401 or 403. The budget is charged first so
 * a flood of bad keys is throttled too, and every response carries X-RateLimit-* headers.
 */
export const edgePlugin = fp<EdgeOptions>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('principal', undefined);
    app.addHook('onRequest', async (request, reply) => {
      const auth = request.routeOptions.config.auth ?? PUBLIC;
      const identity = await identify(request, auth, options);
      const principal = 'principal' in identity ? identity.principal : undefined;
      const state = principal
        ? await options.limiter.hit(`key:${principal.keyId}`, principal.rateLimitPerMinute)
        : await options.limiter.hit(`ip:${request.ip}`, PUBLIC_RATE_LIMIT_PER_IP);
      setRateLimitHeaders(reply, state);
      if (state.exceeded) {
        reply.header('retry-after', state.retryAfter);
        throw new AppError(
          'RATE_LIMITED',
          `Rate limit of ${state.limit} requests per minute exceeded; retry in ${state.retryAfter} s`,
        );
      }
      if ('failure' in identity) throw identity.failure;
      if (principal && auth.kind === 'key' && auth.scope && !principal.scopes.includes(auth.scope)) {
        throw new AppError('FORBIDDEN', `This API key lacks the ${auth.scope} scope`);
      }
      request.principal = principal;
    });
  },
  { name: 'edge', dependencies: ['errors'] },
);
