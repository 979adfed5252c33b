import type { AppError, Principal, Scope } from '@voice/shared';
import type { FastifyRequest } from 'fastify';
import type { CarriedAuthorization } from '../auth/carried-key';
import type { Access } from '../operations/operation';

/**
 * Who may call a route: anyone, the operator (ADMIN_TOKEN), or an API key (holding `scope`, if set).
 * Declared on every route as `config.auth`; routes without it (404s) count as public.
 *
 * `surface` is for GraphQL and tRPC, whose operations each have their own scope (or none) and whose
 * refusals take their own format: the edge identifies the key if one is sent and charges the same
 * budget, but leaves a refusal (bad key, rate limit) on the request for the surface to answer.
 * `carriedKey` reads a key a surface's clients may send outside the Authorization header.
 */
export type RouteAuth =
  | { kind: 'public' }
  | { kind: 'admin' }
  | { kind: 'key'; scope: Scope | undefined }
  | { kind: 'surface'; carriedKey?: (request: FastifyRequest) => CarriedAuthorization };

export const PUBLIC: RouteAuth = { kind: 'public' };
export const ADMIN: RouteAuth = { kind: 'admin' };
export const requireScope = (scope: Scope): RouteAuth => ({ kind: 'key', scope });
/** Any valid key, whatever its scopes (e.g. "who am I"). */
export const ANY_KEY: RouteAuth = { kind: 'key', scope: undefined };
export const SURFACE: RouteAuth = { kind: 'surface' };
/** A catalogue operation's access as REST checks it at the edge (invoke checks it again). */
export const scopeAuth = (scope: Access): RouteAuth =>
  scope === null ? PUBLIC : scope === 'any-key' ? ANY_KEY : requireScope(scope);

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /**
     * A read-only route (GET or HEAD) whose work may run while its key's rate-limit count is in
     * flight: nothing is answered before the count is (see the edge).
     */
    overlapCharge?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
    /** On a `surface` route: why the edge would have refused the request (401 or 429). */
    surfaceRefusal: AppError | undefined;
  }
}

/** The principal of a route that required a key; the edge hook guarantees it is there. */
export function principalOf(request: { principal: Principal | undefined }): Principal {
  if (!request.principal) throw new Error('route declared without key auth reads a principal');
  return request.principal;
}
