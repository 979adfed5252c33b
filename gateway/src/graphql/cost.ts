import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type DocumentNode,
  type ExecutionArgs,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { type Budget, budgetOf, chargeWeight, type WeightCharge } from '../rate-limit/charge';
import type { RateLimiter } from '../rate-limit/limiter';
import type { GraphQLContext } from './context';
import { toGraphQLError } from './errors';
import { IntrospectionCache } from './introspection';
import { aliasRefusal, MAX_TOKENS } from './limits';
import { fieldsOf, fragmentsOf, runsWith } from './selection';

const UNIT = 'root field';

/**
 * What an operation counts as against the rate limit: one per root field it runs (each alias one
 * more, a field left out by @skip or @include none, `__typename` free), and at least one.
 */
export function operationWeight(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): number {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  const values = coerced.coerced ?? variables ?? {};
  const keys = new Set(
    fieldsOf(operation.selectionSet, fragmentsOf(document), runsWith(values))
      .filter((field) => field.name.value !== '__typename')
      .map((field) => (field.alias ?? field.name).value),
  );
  return Math.max(1, keys.size);
}

interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * What GraphQL operations cost, on both transports. The edge (HTTP) or the socket (graphql-ws)
 * charges an operation's first place before its document is read; once it is parsed and valid,
 * the rest of its weight is charged here, all or nothing, before any of it runs. Introspection-only
 * queries are answered from a cache.
 */
export class GraphQLCosts {
  /** By the context's caller: Apollo hands plugins a shallow copy of the context, not the context. */
  private readonly exchanges = new WeakMap<GraphQLContext['caller'], Exchange>();
  private readonly introspection: IntrospectionCache;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limiter: RateLimiter,
  ) {
    this.introspection = new IntrospectionCache(schema);
  }

  /**
   * Refuses (throws) a document past the alias bound from its parse alone, before Apollo parses and
   * validates it: validation of an alias bomb costs ten times its parse. Anything else, including
   * what does not parse, is left to Apollo to answer.
   */
  screen(request: FastifyRequest): void {
    const carried = request.method === 'GET' ? request.query : request.body;
    const query =
      typeof carried === 'object' && carried !== null ? (carried as { query?: unknown }).query : undefined;
    if (typeof query !== 'string') return;
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: MAX_TOKENS });
    } catch {
      return;
    }
    // Answered as Apollo answers the same error from validation: 400.
    const refusal = aliasRefusal(document, { status: 400 });
    if (refusal) throw refusal;
  }

  /** The HTTP request a context serves: whose budget to charge and where its headers go. */
  remember(context: GraphQLContext, request: FastifyRequest, reply: FastifyReply): GraphQLContext {
    this.exchanges.set(context.caller, { request, reply });
    return context;
  }

  /** Apollo's side: the charge once the operation is known, and introspection from the cache. */
  readonly apolloPlugin: ApolloServerPlugin<GraphQLContext> = {
    requestDidStart: async () => ({
      didResolveOperation: async ({ operation, document, request, contextValue }) => {
        // A subscription over HTTP is refused (subscriptionsOverWebSocketOnly): nothing to charge.
        if (!operation || operation.operation === 'subscription') return;
        const exchange = this.exchanges.get(contextValue.caller);
        if (!exchange) return;
        const charge = await this.charge(
          budgetOf(exchange.request.principal, exchange.request.ip),
          document,
          operation,
          request.variables,
        );
        if (!charge) return;
        exchange.reply.headers(charge.headers);
        if (!charge.refusal) return;
        exchange.reply.header('retry-after', charge.state.retryAfter);
        throw toGraphQLError(charge.refusal, true);
      },
      responseForOperation: async ({ document, request }) => {
        const result = this.introspection.answer(document, request.operationName, request.variables);
        if (!result) return null;
        return {
          http: { status: undefined, headers: new HeaderMap() },
          body: { kind: 'single', singleResult: result },
        };
      },
    }),
  };

  /** graphql-ws's execute: introspection from the cache, anything else as usual. */
  readonly execute = (args: ExecutionArgs) =>
    this.introspection.answer(args.document, args.operationName, args.variableValues) ?? execute(args);

  /** The refusal of a socket's operation that does not fit in its key's budget (its first place is charged). */
  async refuseOnSocket(
    budget: Budget,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): Promise<GraphQLError | undefined> {
    const operation = getOperationAST(document, operationName);
    if (!operation) return undefined;
    const charge = await this.charge(budget, document, operation, variables);
    return charge?.refusal ? toGraphQLError(charge.refusal) : undefined;
  }

  private async charge(
    budget: Budget,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): Promise<WeightCharge | undefined> {
    const weight = operationWeight(this.schema, document, operation, variables);
    return weight > 1 ? chargeWeight(this.limiter, budget, weight, UNIT) : undefined;
  }
}
