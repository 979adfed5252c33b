import { Envelope, type RpcContract } from '@voice/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayClient } from '../clients/gateway-client';
import { callContext } from './context';
import { envelope } from './envelope';
import type { RouteAuth } from './route-auth';
import { BEARER, type ErrorStatus, errorResponses } from './schemas';

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** One REST operation that is a single bus call: how to read it from HTTP and what it answers. */
export interface RpcRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  contract: RpcContract;
  auth: RouteAuth;
  tags: string[];
  summary: string;
  description?: string;
  params?: z.ZodObject;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** Default: path parameters, query and body merged into one request object. */
  toRequest?: (parts: RequestParts) => unknown;
  status: 200 | 201 | 204;
  errors: ErrorStatus[];
}

function merged({ params, query, body }: RequestParts): unknown {
  return { ...query, ...(body && typeof body === 'object' ? body : {}), ...params };
}

/** Registers REST routes that validate with the shared zod schemas and delegate to the bus. */
export function registerRpcRoutes(app: FastifyInstance, client: GatewayClient, routes: RpcRoute[]): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const route of routes) {
    const success =
      route.status === 204
        ? { 204: z.undefined().describe('Done; no content') }
        : { [route.status]: Envelope(route.contract.reply) };
    typed.route({
      method: route.method,
      url: route.url,
      config: { auth: route.auth },
      schema: {
        tags: route.tags,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        security: route.auth.kind === 'public' ? [] : BEARER,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        response: { ...success, ...errorResponses(...route.errors) },
      },
      handler: async (request, reply) => {
        const parts: RequestParts = {
          params: (request.params ?? {}) as Record<string, unknown>,
          query: (request.query ?? {}) as Record<string, unknown>,
          body: request.body,
        };
        const data = await client.call(
          route.contract,
          (route.toRequest ?? merged)(parts),
          callContext(request),
        );
        if (route.status === 204) return reply.code(204).send();
        return reply.code(route.status).send(envelope(request, data));
      },
    });
  }
}
