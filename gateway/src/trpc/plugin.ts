import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { AppError } from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayDeps } from '../deps';
import type { RouteAuth } from '../http/route-auth';
import { toAppError } from '../http/to-app-error';
import { chargeBatch } from './charge';
import { connectionParamsKey } from './connection-params';
import { createContext } from './context';
import { appErrorOf, isUnexpected, requestErrorResponse } from './errors';
import { type AppRouter, appRouter } from './router';

export const TRPC_PREFIX = '/trpc';
/** Procedures one batched request may carry (the client batches at most this many); each counts as a request. */
export const MAX_BATCH = 20;
/** The key in the Authorization header, or in tRPC's own `connectionParams` (EventSource sends no headers). */
const TRPC_AUTH: RouteAuth = { kind: 'surface', carriedKey: connectionParamsKey };

/**
 * tRPC at /trpc. Registered as a plain (encapsulated) plugin, never through fastify-plugin: the
 * adapter swaps the JSON body parser for its own, which must not leak to the REST routes. Every
 * route it adds is a `surface` route: the edge identifies the key (from the Authorization header or
 * tRPC's `connectionParams`) and charges the shared budget, and its refusal is answered by the
 * procedures in tRPC's format.
 */
export const trpcSurface: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  // Open subscriptions would hold the close forever: end them as it starts (clients reconnect).
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  // What fails before a procedure runs (no parser for the Content-Type, a body over the limit) is
  // answered in tRPC's error shape too, not in REST's envelope.
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request.headers['content-type']);
    if (appError.status >= 500 && appError.code !== 'SHUTTING_DOWN') {
      request.log.error({ err: error, code: appError.code }, 'tRPC request failed');
    }
    const { status, body } = requestErrorResponse(appError, request.id);
    return reply.code(status).header('x-request-id', request.id).type('application/json').send(body);
  });
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, auth: TRPC_AUTH };
    route.schema = { ...route.schema, hide: true };
  });
  const trpcOptions: FastifyTRPCPluginOptions<AppRouter>['trpcOptions'] = {
    router: appRouter,
    createContext: async ({ req, res, info }) =>
      chargeBatch(deps.limiter, createContext(deps, req, closing.signal), req, res, info.calls.length),
    maxBatchSize: MAX_BATCH,
    onError: ({ error, path, req }) => {
      if (isUnexpected(error))
        req.log.error({ err: appErrorOf(error) ?? error.cause ?? error, path }, 'tRPC failed');
    },
    responseMeta: ({ errors }) =>
      errors.some((error) => appErrorOf(error)?.status === 401)
        ? { headers: { 'www-authenticate': 'Bearer realm="voice-api"' } }
        : {},
  };
  await app.register(fastifyTRPCPlugin, { prefix: TRPC_PREFIX, trpcOptions });
  // The adapter routes one path segment (`/trpc/:path`); a deeper path names no procedure either,
  // and is answered so, in tRPC's shape, rather than as an unknown REST endpoint.
  app.all(`${TRPC_PREFIX}/*`, async (request) => {
    if (request.surfaceRefusal) throw request.surfaceRefusal;
    const path = (request.url.split('?')[0] ?? '').slice(TRPC_PREFIX.length + 1, 200);
    throw new AppError('NOT_FOUND', `No procedure found on path "${path}"`);
  });
};
