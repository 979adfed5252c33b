import { AppError, type Principal } from '@voice/shared';
import { GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import { effectiveRateLimit, KEY_UNVERIFIED_GRACE_MS } from '../auth/account-store';
import { authorizationParam } from '../auth/carried-key';
import { type KeySession, revokedKeyError } from '../auth/key-sessions';
import type { GatewayDeps } from '../deps';
import { identifyKey } from '../plugins/edge';
import { budgetOf, refusalOf } from '../rate-limit/charge';
import { toGraphQLError } from './errors';

/**
 * WebSocket close codes: no or bad key at connect; the key revoked while the socket was open; a
 * spent budget at connect (graphql-ws's "too many initialisation requests").
 */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_REVOKED = 4403;
export const CLOSE_RATE_LIMITED = 4429;

/** What graphql-ws keeps per socket: the key's principal and its watch (set once connected). */
export type SocketExtra = {
  principal?: Principal;
  session?: KeySession;
  /** When the database last said the key is active (Date.now()). */
  confirmedAt?: number;
};
type Extra = SocketExtra & { socket: WebSocket };

/**
 * connection_init: charged as a request (to the key it names, else to the client IP: a flood of
 * them is rate-limited, 4429); the key (`Authorization` in any case, at the top level or under
 * `headers`) is read from the database, then the socket is watched so that its key's revocation,
 * announced by PostgreSQL on every instance, closes it with 4403 (its subscriptions end with it).
 * Refused keys close it with 4401.
 */
export async function connectSocket(
  deps: GatewayDeps,
  extra: Extra,
  connectionParams: unknown,
  ip: string,
): Promise<boolean> {
  const { socket } = extra;
  const mark = deps.sessions.mark();
  const carried = authorizationParam(connectionParams);
  const identity = 'failure' in carried ? carried : await identifyKey(deps.accounts, carried.value);
  const budget = budgetOf('principal' in identity ? identity.principal : undefined, ip);
  const spent = refusalOf(await deps.limiter.hit(budget.bucket, budget.limit));
  if (spent) {
    socket.close(CLOSE_RATE_LIMITED, spent.message.slice(0, 120));
    return false;
  }
  if ('failure' in identity) {
    socket.close(CLOSE_UNAUTHORIZED, identity.failure.message.slice(0, 120));
    return false;
  }
  const session = deps.sessions.open(
    identity.principal.keyId,
    () => socket.close(CLOSE_REVOKED, revokedKeyError().message),
    mark,
  );
  socket.once('close', () => session.close());
  // Gone while its key was being read: 'close' has already fired.
  if (socket.readyState !== socket.OPEN) {
    session.close();
    return false;
  }
  extra.principal = identity.principal;
  extra.session = session;
  extra.confirmedAt = Date.now();
  return true;
}

/**
 * Before each operation on a socket (query, mutation or subscription): its key is checked as an HTTP
 * request's is, in the statement that charges the key's budget (shared with REST and tRPC). A key
 * found revoked ends every socket of it here; one whose revocation was heard is refused without
 * a round trip. Answers the operation's errors, or undefined to run it.
 */
export async function admitOperation(deps: GatewayDeps, extra: Extra): Promise<GraphQLError[] | undefined> {
  const { principal, session } = extra;
  if (!principal || !session)
    return [new GraphQLError('Unauthenticated', { extensions: { code: 'UNAUTHENTICATED' } })];
  if (session.revoked) return [toGraphQLError(revokedKeyError())];
  const charged = await deps.limiter.hitKey(
    principal.keyId,
    effectiveRateLimit,
    principal.rateLimitPerMinute,
  );
  if (!('state' in charged)) {
    deps.sessions.endKey(principal.keyId);
    return [toGraphQLError(revokedKeyError())];
  }
  // Heard while the count was in flight: the count may have read the key just before the commit.
  if (session.revoked) return [toGraphQLError(revokedKeyError())];
  if (charged.key === 'active') {
    extra.principal = { ...principal, plan: charged.plan, rateLimitPerMinute: charged.state.limit };
    extra.confirmedAt = Date.now();
  } else if (Date.now() - (extra.confirmedAt ?? 0) > KEY_UNVERIFIED_GRACE_MS) {
    // The database did not answer, and the key was last confirmed too long ago to vouch for it.
    return [
      toGraphQLError(
        new AppError('SERVICE_TIMEOUT', undefined, { cause: new Error('API key check failed') }),
      ),
    ];
  }
  const spent = refusalOf(charged.state);
  return spent ? [toGraphQLError(spent)] : undefined;
}
