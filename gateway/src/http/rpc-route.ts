import { AppError, type CallContext, Envelope, type RpcContract, type ValidationIssue } from '@voice/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayClient } from '../clients/gateway-client';
import type { GatewayDeps } from '../deps';
import { IDEMPOTENCY_HEADER, idempotent, requestHash } from '../idempotency/idempotency';
import type { Operation } from '../operations/operation';
import { callContext } from './context';
import { envelope, envelopeJson } from './envelope';
import { operationId } from './openapi-operation';
import { principalOf, type RouteAuth, scopeAuth } from './route-auth';
import { BEARER, type ErrorStatus, errorResponses } from './schemas';
import { issuesFor, RequestValidationError } from './validation';

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** What every REST route states itself: how it is read from HTTP, answered and documented. */
interface RouteBase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  tags: string[];
  summary: string;
  description?: string;
  params?: z.ZodObject;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** A body the OpenAPI document shows and Swagger UI's "Try it out" sends (ids are placeholders). */
  bodyExample?: unknown;
  status: 200 | 201 | 204;
  /** What the success answer holds: its description in the OpenAPI document. */
  answers: string;
  errors: ErrorStatus[];
  /**
   * Problems the body schema cannot see (catalogue values, address policy), asked of a service when
   * the schema fails, so one 422 lists them all. Given the body as sent (unvalidated: any shape).
   * When the schema passes, the service checks these itself.
   */
  moreIssues?: (rawBody: unknown, ctx: MoreIssuesContext) => Promise<ValidationIssue[]>;
}

/**
 * A catalogue operation as REST runs it. `run` and `runJson` take `never` so that any operation fits without a
 * cast at each route: what REST hands it is the input its own schemas validated (see toInput).
 */
export type RestOperation = Pick<Operation, 'name' | 'scope' | 'reply' | 'idempotent'> & {
  run: (deps: GatewayDeps, input: never, context: CallContext) => Promise<unknown>;
  runJson?:
    | ((deps: GatewayDeps, input: never, context: CallContext) => Promise<string | undefined>)
    | undefined;
};

/**
 * A REST route of an operation GraphQL and tRPC also run (gateway/src/operations/catalogue.ts): its
 * scope, reply, transform and idempotency are the operation's, stated there once.
 */
export interface OperationRoute extends RouteBase {
  operation: RestOperation;
  /**
   * The operation's input from the request the route's schemas validated. It is not validated
   * again by the operation's `input`: REST's 422s name REST's locations (`["body", ...]`).
   * Default: path parameters, query and body merged (idFrom when the path names the resource).
   */
  toInput?: (parts: RequestParts) => unknown;
}

/** A REST route that is one bus call and no operation of the catalogue (REST's own). */
export interface ContractRoute extends RouteBase {
  /**
   * Its name, of the catalogue's form (`webhooks.redeliver`), from which its operationId is made: an
   * operation that later joins the catalogue under this name keeps its id.
   */
  name: string;
  contract: RpcContract;
  auth: RouteAuth;
  /** Default: path parameters, query and body merged into one request object. */
  toRequest?: (parts: RequestParts) => unknown;
}

/** One REST route served over the bus: how to read it from HTTP and what it answers. */
export type RpcRoute = OperationRoute | ContractRoute;

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
 * toInput for a path that names the operation's resource: that parameter becomes its `id` (e.g.
 * call_id), the rest is merged as by default.
 */
export function idFrom(param: string): (parts: RequestParts) => unknown {
  return ({ params, query, body }) => {
    const { [param]: id, ...others } = params;
    return merged({ params: { ...others, id }, query, body });
  };
}

/** How a route is served, whichever way it was declared. */
interface Serving {
  name: string;
  auth: RouteAuth;
  reply: z.ZodType;
  idempotent: boolean;
  run: (parts: RequestParts, context: CallContext) => Promise<unknown>;
  /** For an answer that is the service's reply as it came: run, answering its JSON text unparsed. */
  runJson: ((parts: RequestParts, context: CallContext) => Promise<string | undefined>) | undefined;
}

function serving(route: RpcRoute, deps: GatewayDeps): Serving {
  if ('operation' in route) {
    const { operation } = route;
    const { runJson } = operation;
    const toInput = route.toInput ?? merged;
    return {
      name: operation.name,
      auth: scopeAuth(operation.scope),
      reply: operation.reply,
      idempotent: operation.idempotent === true,
      run: (parts, context) => operation.run(deps, toInput(parts) as never, context),
      runJson: runJson && ((parts, context) => runJson(deps, toInput(parts) as never, context)),
    };
  }
  const toRequest = route.toRequest ?? merged;
  return {
    name: route.name,
    auth: route.auth,
    reply: route.contract.reply,
    idempotent: false,
    run: (parts, context) => deps.client.call(route.contract, toRequest(parts), context),
    runJson: (parts, context) => deps.client.callJson(route.contract, toRequest(parts), context),
  };
}

/**
 * A success answer is the service's reply, already checked against the contract's reply schema by
 * the service before sending it (serveRpc), in the envelope: encoding it through that schema again (the zod serializer)
 * changed nothing and cost a measurable share of every request (docs/performance.md). Errors still go
 * through the zod serializer.
 */
const toJson = (data: unknown): string => JSON.stringify(data);

/** Registers REST routes that validate with the shared zod schemas and delegate to the bus. */
export function registerRpcRoutes(app: FastifyInstance, deps: GatewayDeps, routes: RpcRoute[]): void {
  const { client, sql } = deps;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const route of routes) {
    const served = serving(route, deps);
    const success =
      route.status === 204
        ? { 204: z.undefined().describe(route.answers) }
        : { [route.status]: Envelope(served.reply).describe(route.answers) };
    typed.route({
      method: route.method,
      url: route.url,
      // A GET is one read over the bus: it may run while its key is counted (see the edge).
      config: { auth: served.auth, overlapCharge: route.method === 'GET' },
      serializerCompiler: (definition) =>
        definition.httpStatus === String(route.status)
          ? toJson
          : serializerCompiler(definition as unknown as Parameters<typeof serializerCompiler>[0]),
      // With moreIssues, a failed validation reaches the handler, which completes the 422.
      attachValidation: route.moreIssues !== undefined,
      schema: {
        operationId: operationId(served.name),
        tags: route.tags,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        security: served.auth.kind === 'public' ? [] : BEARER,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        ...(route.bodyExample === undefined ? {} : { bodyExample: route.bodyExample }),
        ...(served.idempotent ? { headers: IdempotencyHeaders } : {}),
        response: { ...success, ...errorResponses(...route.errors) },
      },
      handler: async (request, reply) => {
        if (request.validationError)
          throw await validationFailure(route, request, client, request.validationError);
        const parts: RequestParts = {
          params: (request.params ?? {}) as Record<string, unknown>,
          // Only a route with a querystring schema reads the query: otherwise unvalidated fields
          // (e.g. `?id=` on POST /v1/call) would reach the service's request, whose contract may
          // accept them from other callers (the campaign dispatcher chooses call ids).
          query: route.querystring ? ((request.query ?? {}) as Record<string, unknown>) : {},
          body: request.body,
        };
        const run = async () => {
          // A reply sent on as it came is sent as the text it came in, never parsed; one that is
          // changed (by a transform) or stored for replays is parsed and serialised.
          if (served.runJson && !served.idempotent && route.status !== 204) {
            const text = await served.runJson(parts, callContext(request));
            const body = text === undefined ? envelope(request, undefined) : envelopeJson(request, text);
            return { status: route.status, body };
          }
          const data = await served.run(parts, callContext(request));
          if (route.status === 204) return { status: route.status, body: undefined };
          return { status: route.status, body: envelope(request, data) };
        };
        const key = served.idempotent ? request.headers[IDEMPOTENCY_HEADER] : undefined;
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
