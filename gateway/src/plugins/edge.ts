import { AppError, type Principal, withDeadline } from '@voice/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type AccountStore, effectiveRateLimit, KEY_UNVERIFIED_GRACE_MS } from '../auth/account-store';
import { parseBearer, sameSecret } from '../auth/keys';
import { PUBLIC, type RouteAuth } from '../http/route-auth';
import { toAppError } from '../http/to-app-error';
import { budgetOf, refusalOf } from '../rate-limit/charge';
import { type RateLimiter, type RateLimitState, rateLimitHeaders } from '../rate-limit/limiter';
import { prepareError } from './errors';

export interface EdgeOptions {
  accounts: AccountStore;
  limiter: RateLimiter;
  adminToken: string | undefined;
  /** True once the server is closing: new requests get a 503 in the envelope. */
  isClosing: () => boolean;
}

const UNAUTHORIZED_DETAIL = {
  missing: 'Missing API key: send Authorization: Bearer <API_KEY>',
  malformed: 'Malformed Authorization header: expected Bearer <API_KEY>',
  unknown: 'Invalid API key',
  revoked: 'This API key has been revoked',
  duplicated: 'Send exactly one Authorization header',
  twice: 'Send the API key once: in the Authorization header or in connectionParams, not both',
} as const;

/** Bounds the key lookup: a stalled database answers 503, not a hanging request. */
const AUTH_DEADLINE_MS = 2000;

type Identity =
  | { principal: Principal; cacheKey: string; fromCache: boolean }
  | { failure: AppError }
  | { admin: true }
  | { anonymous: true };

type Charge = Awaited<ReturnType<typeof chargeRequest>>;

/** What the edge decided about a request whose count ran beside its work: its headers and refusal. */
interface Verdict {
  headers: Record<string, number>;
  refusal: AppError | undefined;
  retryAfter: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The count of a request whose work runs meanwhile (overlapCharge); settled before it is answered. */
    pendingVerdict: Promise<Verdict> | undefined;
  }
}

function authorizationHeaderCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

async function identify(request: FastifyRequest, auth: RouteAuth, options: EdgeOptions): Promise<Identity> {
  if (auth.kind === 'public') return { anonymous: true };
  const carried =
    auth.kind === 'surface' && auth.carriedKey ? auth.carriedKey(request) : { value: undefined };
  if ('failure' in carried) return carried;
  const authorization = request.headers.authorization ?? carried.value;
  // A surface serves public operations too: no key at all is anonymous, and the surface decides.
  if (auth.kind === 'surface' && authorization === undefined) return { anonymous: true };
  if (authorizationHeaderCount(request) > 1) {
    return { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL.duplicated) };
  }
  if (request.headers.authorization !== undefined && carried.value !== undefined) {
    return { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL.twice) };
  }
  if (auth.kind === 'admin') {
    const bearer = parseBearer(authorization);
    if (!bearer.ok)
      return {
        failure: new AppError(
          'UNAUTHORIZED',
          'Missing admin token: send Authorization: Bearer <ADMIN_TOKEN>',
        ),
      };
    const valid = options.adminToken !== undefined && sameSecret(bearer.token, options.adminToken);
    return valid ? { admin: true } : { failure: new AppError('UNAUTHORIZED', 'Invalid admin token') };
  }
  const bearer = parseBearer(authorization);
  if (!bearer.ok) return { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[bearer.reason]) };
  const result = await withDeadline(
    options.accounts.authenticateForEdge(bearer.token),
    AUTH_DEADLINE_MS,
    'API key lookup',
  );
  return result.ok
    ? { principal: result.principal, cacheKey: result.cacheKey, fromCache: result.fromCache }
    : { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[result.reason]) };
}

/**
 * Charges a key's budget in the statement that also checks the key is still active, so a key found
 * in the cache is trusted only once the database confirms it (a revoked key is refused on the next
 * request on every instance). A key that turned out revoked or gone is refused and, like any bad
 * key, charged to the client IP. If the database does not answer, the count fails open as always
 * and a cached key is accepted only if it was confirmed within KEY_UNVERIFIED_GRACE_MS.
 */
async function chargeKey(
  request: FastifyRequest,
  identity: Extract<Identity, { principal: Principal }>,
  options: EdgeOptions,
): Promise<{ identity: Identity; charge: Charge }> {
  const { principal, cacheKey } = identity;
  const charged = await options.limiter.hitKey(
    principal.keyId,
    effectiveRateLimit,
    principal.rateLimitPerMinute,
  );
  if (charged.key === 'active') {
    const current = { ...principal, plan: charged.plan, rateLimitPerMinute: charged.state.limit };
    options.accounts.confirm(cacheKey, current);
    return { identity: { ...identity, principal: current }, charge: chargeOf(charged.state) };
  }
  if (charged.key === 'unverified') {
    if (identity.fromCache && !options.accounts.confirmedWithin(cacheKey, KEY_UNVERIFIED_GRACE_MS)) {
      throw new AppError('SERVICE_TIMEOUT', undefined, { cause: new Error('API key check failed') });
    }
    return { identity, charge: chargeOf(charged.state) };
  }
  options.accounts.forget(cacheKey);
  const failure = new AppError(
    'UNAUTHORIZED',
    UNAUTHORIZED_DETAIL[charged.key === 'revoked' ? 'revoked' : 'unknown'],
  );
  return { identity: { failure }, charge: await chargeRequest(options.limiter, request, undefined) };
}

/**
 * The principal of an API key sent as `Bearer <key>` in a WebSocket's connection_init: always read
 * from the database (each later operation on the socket is checked as a request is: socket-auth.ts).
 */
export async function identifyKey(
  accounts: AccountStore,
  authorization: string | undefined,
): Promise<{ principal: Principal } | { failure: AppError }> {
  const bearer = parseBearer(authorization);
  if (!bearer.ok) return { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[bearer.reason]) };
  const result = await withDeadline(accounts.authenticate(bearer.token), AUTH_DEADLINE_MS, 'API key lookup');
  return result.ok
    ? { principal: result.principal }
    : { failure: new AppError('UNAUTHORIZED', UNAUTHORIZED_DETAIL[result.reason]) };
}

/** The budget a request draws on: its key's, or its client IP's for public and unauthenticated calls. */
export async function chargeRequest(
  limiter: RateLimiter,
  request: FastifyRequest,
  principal: Principal | undefined,
): Promise<{ headers: Record<string, number>; refusal: AppError | undefined; retryAfter: number }> {
  const { bucket, limit } = budgetOf(principal, request.ip);
  return chargeOf(await limiter.hit(bucket, limit));
}

function chargeOf(state: RateLimitState): Charge {
  return { headers: rateLimitHeaders(state), refusal: refusalOf(state), retryAfter: state.retryAfter };
}

/**
 * A request the edge would let through if its key's count says so: a read-only route that allows
 * it, a key found, not closing, a known route, the scope held. Anything else is decided first, as
 * the count can only add a refusal that outranks it (429, or 401 for a revoked key).
 */
function canOverlap(
  request: FastifyRequest,
  auth: RouteAuth,
  principal: Principal,
  options: EdgeOptions,
): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    request.routeOptions.config.overlapCharge === true &&
    auth.kind === 'key' &&
    !request.is404 &&
    !options.isClosing() &&
    (auth.scope === undefined || principal.scopes.includes(auth.scope))
  );
}

/** The count of an overlapped request, as the refusal it may turn into (in the edge's order). */
async function overlappedVerdict(
  request: FastifyRequest,
  found: Extract<Identity, { principal: Principal }>,
  options: EdgeOptions,
): Promise<Verdict> {
  try {
    const { identity, charge } = await chargeKey(request, found, options);
    return {
      ...charge,
      refusal: charge.refusal ?? ('failure' in identity ? identity.failure : undefined),
    };
  } catch (error) {
    return { headers: {}, refusal: toAppError(error, undefined), retryAfter: 0 };
  }
}

/**
 * The edge, in order: who is calling, charge their budget (per key, or per client IP for public
 * and unauthenticated requests), then refuse with 429, 401, 403, 404 (no such route: before the
 * body is read) or 503 (shutting down). The budget is charged first so a flood of bad keys is
 * throttled too, and every response carries X-RateLimit-* headers.
 *
 * A read-only route (overlapCharge) with a known key runs while its count is in flight, instead of
 * after it: a GET then waits for one round trip (the longer of the count and its own work) rather
 * than both in turn. Nothing changes for the client: the answer is held until the count is in, is
 * replaced by the refusal if the count refuses (429, or 401 for a key revoked meanwhile, whose
 * read is discarded unseen), and carries the count's headers. Only reads run early, so a refused
 * request has done nothing.
 */
export const edgePlugin = fp<EdgeOptions>(
  async (app: FastifyInstance, options) => {
    app.decorateRequest('principal', undefined);
    app.decorateRequest('surfaceRefusal', undefined);
    app.decorateRequest('pendingVerdict', undefined);
    app.addHook('onRequest', async (request, reply) => {
      const auth = request.routeOptions.config.auth ?? PUBLIC;
      const found = await identify(request, auth, options);
      if ('principal' in found && canOverlap(request, auth, found.principal, options)) {
        request.principal = found.principal;
        request.pendingVerdict = overlappedVerdict(request, found, options);
        return;
      }
      const { identity, charge } =
        'principal' in found
          ? await chargeKey(request, found, options)
          : { identity: found, charge: await chargeRequest(options.limiter, request, undefined) };
      const principal = 'principal' in identity ? identity.principal : undefined;
      reply.headers(charge.headers);
      if (auth.kind === 'surface' && !options.isClosing() && !request.is404) {
        if (charge.refusal) reply.header('retry-after', charge.retryAfter);
        request.surfaceRefusal = charge.refusal ?? ('failure' in identity ? identity.failure : undefined);
        request.principal = principal;
        return;
      }
      if (charge.refusal) {
        reply.header('retry-after', charge.retryAfter);
        throw charge.refusal;
      }
      if (options.isClosing()) throw new AppError('SHUTTING_DOWN');
      if (request.is404) {
        const path = (request.url.split('?')[0] ?? '').slice(0, 200);
        throw new AppError('ROUTE_NOT_FOUND', `No endpoint ${request.method} ${path}`);
      }
      if ('failure' in identity) throw identity.failure;
      if (principal && auth.kind === 'key' && auth.scope && !principal.scopes.includes(auth.scope)) {
        throw new AppError('FORBIDDEN', `This API key lacks the ${auth.scope} scope`);
      }
      request.principal = principal;
    });
    // Every answer passes here, success or error, so an overlapped request is never answered early.
    app.addHook('onSend', async (request, reply, payload) => {
      const pending = request.pendingVerdict;
      if (!pending) return payload;
      request.pendingVerdict = undefined;
      const verdict = await pending;
      reply.headers(verdict.headers);
      if (!verdict.refusal) return payload;
      if (verdict.refusal.code === 'RATE_LIMITED') reply.header('retry-after', verdict.retryAfter);
      if (verdict.refusal.status >= 500) {
        request.log.error({ err: verdict.refusal, code: verdict.refusal.code }, 'request failed');
      }
      return JSON.stringify(prepareError(request, reply, verdict.refusal));
    });
  },
  { name: 'edge', dependencies: ['errors'] },
);
