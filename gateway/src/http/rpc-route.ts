import { AppError, type CallContext, Envelope, type ValidationIssue } from '@voice/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayClient } from '../clients/gateway-client';
import type { GatewayDeps } from '../deps';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY, requestHash } from '../idempotency/idempotency';
import { type AnyOperation, type Caller, execute, invoke } from '../operations/operation';
import { sendCacheable } from './cacheable';
import { callContext } from './context';
import { envelope, envelopeJson } from './envelope';
import { operationId } from './openapi-operation';
import { scopeAuth } from './route-auth';
import { BEARER, type ErrorStatus, errorResponses } from './schemas';
import { issuesFor, RequestValidationError } from './validation';

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * The REST route of an operation of the catalogue (gateway/src/operations), which every surface
 * runs through invoke: its scope, reply, idempotency and run are the operation's; the route states
 * how it is read from HTTP, answered and documented.
 */
export interface RestRoute {
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
   * Public catalogue data, answered with Cache-Control and a strong ETag (304 when it still
   * matches), which the description says.
   */
  cacheable?: boolean;
  /**
   * Problems the body schema cannot see (catalogue values, address policy), asked of a service when
   * the schema fails, so one 422 lists them all. Given the body as sent (unvalidated: any shape).
   * When the schema passes, the service checks these itself.
   */
  moreIssues?: (rawBody: unknown, ctx: MoreIssuesContext) => Promise<ValidationIssue[]>;
  /**
   * The operation's input from the request the route's schemas validated. It is not validated
   * again by the operation's `input`: REST's 422s name REST's locations (`["body", ...]`).
   * Default: path parameters, query and body merged (idFrom when the path names the resource).
   */
  toInput?: (parts: RequestParts) => unknown;
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
  route: RestRoute,
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
    .regex(IDEMPOTENCY_KEY, 'must be 8 to 255 visible ASCII characters')
    .optional()
    .describe(
      'Makes a retry safe: a repeat with the same body returns the first response; another body is a 409',
    ),
});

/** Who asks on a REST request: the edge identified the key (and refused a missing scope) already. */
export function restCaller(request: FastifyRequest): Caller {
  const key = request.headers[IDEMPOTENCY_HEADER];
  return {
    principal: request.principal,
    context: callContext(request),
    ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
  };
}

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

/**
 * A success answer is the service's reply, already checked against the contract's reply schema by
 * the service before sending it (serveRpc), in the envelope: encoding it through that schema again (the zod serializer)
 * changed nothing and cost a measurable share of every request (docs/performance.md). Errors still go
 * through the zod serializer.
 */
const toJson = (data: unknown): string => JSON.stringify(data);

const CACHING =
  ' Public. Answers carry `Cache-Control` and a strong `ETag`; send it back in `If-None-Match` for a 304.';
const notModified = { 304: z.undefined().describe('Not modified: the ETag still matches') };

/** How the route reads its request: only a route with a querystring schema reads the query. */
function partsOf(route: RestRoute, request: FastifyRequest): RequestParts {
  return {
    params: (request.params ?? {}) as Record<string, unknown>,
    // Otherwise unvalidated fields (e.g. `?id=` on POST /v1/call) would reach the service's
    // request, whose contract may accept them from other callers (the campaign dispatcher chooses call ids).
    query: route.querystring ? ((request.query ?? {}) as Record<string, unknown>) : {},
    body: request.body,
  };
}

/** The route's OpenAPI description and its success and error responses. */
function documented(route: RestRoute, operation: AnyOperation) {
  const success =
    route.status === 204
      ? { 204: z.undefined().describe(route.answers) }
      : { [route.status]: Envelope(operation.reply).describe(route.answers) };
  const description = `${route.description ?? ''}${route.cacheable ? CACHING : ''}`;
  return {
    ...(description ? { description } : {}),
    response: { ...success, ...(route.cacheable ? notModified : {}), ...errorResponses(...route.errors) },
  };
}

/**
 * Registers the REST route of each operation given (its `rest`): validated with the route's zod
 * schemas, run through execute, answered in the envelope.
 */
export function registerOperationRoutes(
  app: FastifyInstance,
  deps: GatewayDeps,
  operations: readonly AnyOperation[],
): void {
  const { client } = deps;
  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const operation of operations) {
    const route = operation.rest;
    const toInput = route.toInput ?? merged;
    const idempotentRoute = operation.idempotent === true;
    const auth = scopeAuth(operation.scope);
    const { description, response } = documented(route, operation);
    typed.route({
      method: route.method,
      url: route.url,
      // A GET is one read over the bus: it may run while its key is counted (see the edge).
      config: { auth, overlapCharge: route.method === 'GET' },
      serializerCompiler: (definition) =>
        definition.httpStatus === String(route.status)
          ? toJson
          : serializerCompiler(definition as unknown as Parameters<typeof serializerCompiler>[0]),
      // With moreIssues, a failed validation reaches the handler, which completes the 422.
      attachValidation: route.moreIssues !== undefined,
      schema: {
        operationId: operationId(operation.name),
        tags: route.tags,
        summary: route.summary,
        ...(description ? { description } : {}),
        security: auth.kind === 'public' ? [] : BEARER,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        ...(route.bodyExample === undefined ? {} : { bodyExample: route.bodyExample }),
        ...(idempotentRoute ? { headers: IdempotencyHeaders } : {}),
        response,
      },
      handler: async (request, reply) => {
        if (request.validationError)
          throw await validationFailure(route, request, client, request.validationError);
        const input = toInput(partsOf(route, request));
        if (route.cacheable) {
          const data = await invoke(deps, operation, input, restCaller(request), { validated: true });
          return sendCacheable(request, reply, data);
        }
        const outcome = await execute(deps, operation, input, restCaller(request), {
          validated: true,
          // A key binds the method, the path and the body as sent.
          requestHash: requestHash(route.method, request.url, request.body),
          answer: async ({ result, json }) => {
            // A reply sent on as it came is sent as the text it came in, never parsed; one that is
            // changed (by a transform) or stored for replays is parsed and serialised.
            if (json && !idempotentRoute && route.status !== 204) {
              const text = await json();
              const body = text === undefined ? envelope(request, undefined) : envelopeJson(request, text);
              return { status: route.status, body };
            }
            const data = await result();
            if (route.status === 204) return { status: route.status, body: undefined };
            return { status: route.status, body: envelope(request, data) };
          },
        });
        if (outcome.replayed) reply.header('idempotent-replayed', 'true');
        if (typeof outcome.body === 'string') reply.type('application/json; charset=utf-8');
        return reply.code(outcome.status).send(outcome.body);
      },
    });
  }
}
