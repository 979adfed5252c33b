import {
  AppError,
  type CallContext,
  Envelope,
  type RpcContract,
  replyJson,
  type ValidationIssue,
} from '@voice/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayClient } from '../clients/gateway-client';
import type { GatewayDeps } from '../deps';
import { IDEMPOTENCY_HEADER, idempotent, requestHash } from '../idempotency/idempotency';
import { callContext } from './context';
import { envelope, envelopeJson } from './envelope';
import { principalOf, type RouteAuth } from './route-auth';
import { BEARER, type ErrorStatus, errorResponses } from './schemas';
import { issuesFor, RequestValidationError } from './validation';

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
  /**
   * An operation that takes several bus calls (a staged upload), run through the client layer;
   * `contract` then only names the reply. Default: one call of `contract`.
   */
  invoke?: (client: GatewayClient, request: unknown, ctx: CallContext) => Promise<unknown>;
  status: 200 | 201 | 204;
  errors: ErrorStatus[];
  /** Adjusts the service's answer before it is sent (e.g. signing links in it). */
  transform?: (data: unknown, deps: GatewayDeps) => unknown;
  /** Honours an Idempotency-Key header: a repeat returns the first response and does nothing again. */
  idempotent?: boolean;
  /**
   * Problems the body schema cannot see (catalogue values, address policy), asked of a service when
   * the schema fails, so one 422 lists them all. Given the body as sent (unvalidated: any shape).
   * When the schema passes, the service checks these itself.
   */
  moreIssues?: (rawBody: unknown, ctx: MoreIssuesContext) => Promise<ValidationIssue[]>;
}

export interface MoreIssuesContext {
  client: GatewayClient;
  context: CallContext;
}

/**
 * The error a route with `moreIssues` answers when validation failed: for the body, the schema's
 * issues followed by the hook's on other locations, in one 422. A hook that fails (service down)
 * leaves the schema's issues, which are still right.
 */
async function validationFailure(
  route: RpcRoute,
  request: FastifyRequest,
  client: GatewayClient,
  error: Error & { validationContext?: string },
): Promise<Error> {
  if (!route.moreIssues || error.validationContext !== 'body' || !(error instanceof RequestValidationError)) {
    return error;
  }
  const issues = issuesFor(error, 'body');
  let more: ValidationIssue[] = [];
  try {
    more = await route.moreIssues(request.body, { client, context: callContext(request) });
  } catch (failure) {
    request.log.warn({ err: failure }, 'validation: the service check failed; answering the schema issues');
  }
  const seen = new Set(issues.map((issue) => JSON.stringify(issue.loc)));
  for (const issue of more) {
    const loc = JSON.stringify(issue.loc);
    if (seen.has(loc)) continue;
    seen.add(loc);
    issues.push(issue);
  }
  return AppError.validation(issues);
}

const IdempotencyHeaders = z.looseObject({
  [IDEMPOTENCY_HEADER]: z
    .string()
    .regex(/^[\x21-\x7e]{8,255}$/, 'must be 8 to 255 visible ASCII characters')
    .optional()
    .describe(
      'Makes a retry safe: a repeat with the same body returns the first response; another body is a 409',
    ),
});

function merged({ params, query, body }: RequestParts): unknown {
  return { ...query, ...(body && typeof body === 'object' ? body : {}), ...params };
}

/**
 * A success answer is the service's reply, already checked against the contract's reply schema by
 * the service before sending it (serveRpc), in the envelope: encoding it through that schema again (the zod serializer)
 * changed nothing and cost several percent of every request (BENCHMARKS.md). Errors still go
 * through the zod serializer.
 */
const toJson = (data: unknown): string => JSON.stringify(data);

/** Registers REST routes that validate with the shared zod schemas and delegate to the bus. */
export function registerRpcRoutes(app: FastifyInstance, deps: GatewayDeps, routes: RpcRoute[]): void {
  const { client, sql } = deps;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const route of routes) {
    const success =
      route.status === 204
        ? { 204: z.undefined().describe('Done; no content') }
        : { [route.status]: Envelope(route.contract.reply) };
    typed.route({
      method: route.method,
      url: route.url,
      // A GET is one read over the bus: it may run while its key is counted (see the edge).
      config: { auth: route.auth, overlapCharge: route.method === 'GET' },
      serializerCompiler: (definition) =>
        definition.httpStatus === String(route.status)
          ? toJson
          : serializerCompiler(definition as unknown as Parameters<typeof serializerCompiler>[0]),
      // With moreIssues, a failed validation reaches the handler, which completes the 422.
      attachValidation: route.moreIssues !== undefined,
      schema: {
        tags: route.tags,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        security: route.auth.kind === 'public' ? [] : BEARER,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        ...(route.idempotent ? { headers: IdempotencyHeaders } : {}),
        response: { ...success, ...errorResponses(...route.errors) },
      },
      handler: async (request, reply) => {
        if (request.validationError)
          throw await validationFailure(route, request, client, request.validationError);
        const parts: RequestParts = {
          params: (request.params ?? {}) as Record<string, unknown>,
          query: (request.query ?? {}) as Record<string, unknown>,
          body: request.body,
        };
        const run = async () => {
          const input = (route.toRequest ?? merged)(parts);
          const data = route.invoke
            ? await route.invoke(client, input, callContext(request))
            : await client.call(route.contract, input, callContext(request));
          if (route.status === 204) return { status: route.status, body: undefined };
          // A reply sent on as it came is sent as the text it came in (see replyJson); one that is
          // changed here or stored for replays is serialised.
          const text = route.transform || route.invoke || route.idempotent ? undefined : replyJson(data);
          if (text !== undefined) return { status: route.status, body: envelopeJson(request, text) };
          const body = route.transform ? route.transform(data, deps) : data;
          return { status: route.status, body: envelope(request, body) };
        };
        const key = route.idempotent ? request.headers[IDEMPOTENCY_HEADER] : undefined;
        const outcome =
          typeof key === 'string'
            ? await idempotent(
                sql,
                principalOf(request).accountId,
                key,
                requestHash(route.method, request.url, request.body),
                run,
              )
            : { ...(await run()), replayed: false };
        if (outcome.replayed) reply.header('idempotent-replayed', 'true');
        if (typeof outcome.body === 'string') reply.type('application/json; charset=utf-8');
        return reply.code(outcome.status).send(outcome.body);
      },
    });
  }
}
