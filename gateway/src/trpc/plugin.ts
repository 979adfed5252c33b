import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayDeps } from '../deps';
import { SURFACE } from '../http/route-auth';
import { createContext } from './context';
import { appErrorOf, isUnexpected } from './errors';
import { type AppRouter, appRouter } from './router';

export const TRPC_PREFIX = '/trpc';
/** Procedures one batched request may carry (the client batches at most this many). */
export const MAX_BATCH = 20;

/**
 * tRPC at /trpc. Registered as a plain (encapsulated) plugin, never through fastify-plugin: the
 * adapter swaps the JSON body parser for its own, which must not leak to the REST routes. Every
 * route it adds is a `surface` route: the edge identifies the key and charges the shared budget,
 * and its refusal is answered by the procedures in tRPC's format.
 */
export const trpcSurface: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  // Open subscriptions would hold the close forever: end them as it starts (clients reconnect).
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, auth: SURFACE };
    route.schema = { ...route.schema, hide: true };
  });
  const trpcOptions: FastifyTRPCPluginOptions<AppRouter>['trpcOptions'] = {
    router: appRouter,
    createContext: ({ req }) => createContext(deps, req, closing.signal),
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
};
