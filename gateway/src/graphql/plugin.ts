import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import websocket from '@fastify/websocket';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, GraphQLError, parse, specifiedRules, validate } from 'graphql';
import { handleProtocols } from 'graphql-ws';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import type { GatewayDeps } from '../deps';
import { callContext } from '../http/context';
import { SURFACE } from '../http/route-auth';
import { toAppError } from '../http/to-app-error';
import { budgetOf } from '../rate-limit/charge';
import { buildContext, type GraphQLContext } from './context';
import { GraphQLCosts } from './cost';
import { formatApolloError, toGraphQLError } from './errors';
import { registerGraphiqlAssets, sendGraphiql, wantsGraphiql } from './graphiql';
import { aliasRefusal, MAX_TOKENS, queryLimits } from './limits';
import { buildSchema } from './schema';
import { sharedSubscribe } from './shared-subscribe';
import { admitOperation, connectSocket, type SocketExtra } from './socket-auth';

const RULES = [...specifiedRules, queryLimits];
/** Tells clients to reconnect elsewhere. */
const CLOSE_GOING_AWAY = 1001;

/**
 * Apollo would run a subscription sent over HTTP as a one-off execution whose root field has no
 * resolver (a null for a non-null field: an internal error). Subscriptions live on graphql-ws.
 */
const subscriptionsOverWebSocketOnly: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== 'subscription') return;
        throw new GraphQLError(
          'Subscriptions are served over WebSocket (graphql-ws) on /graphql, not over HTTP',
          { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
        );
      },
    };
  },
};

/**
 * GraphQL at /graphql: queries and mutations over HTTP through Apollo Server (POST; GET for
 * queries), subscriptions over graphql-ws on the same path, and GraphiQL for a browser's GET.
 * Resolvers run the gateway's operations, so auth, scopes, budgets and tenancy are REST's.
 */
export const graphqlSurface: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  const schema = buildSchema();
  const costs = new GraphQLCosts(schema, deps.limiter);
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    validationRules: [queryLimits],
    includeStacktraceInErrorResponses: false,
    formatError: formatApolloError,
    // graphql-js parses recursively: a document nested a few thousand levels deep overflowed the
    // stack (a RangeError, answered 500). The token limit refuses it first (GRAPHQL_PARSE_FAILED).
    parseOptions: { maxTokens: MAX_TOKENS },
    // The platform owns signals and the stop order; Apollo is stopped by the drain plugin on close.
    stopOnTerminationSignals: false,
    plugins: [
      fastifyApolloDrainPlugin(app),
      ApolloServerPluginLandingPageDisabled(),
      subscriptionsOverWebSocketOnly,
      costs.apolloPlugin,
    ],
  });
  await apollo.start();

  const httpContext = async (request: FastifyRequest, reply: FastifyReply): Promise<GraphQLContext> => {
    // The edge identified the key and charged the budget; its refusal is answered here, GraphQL-style.
    if (request.surfaceRefusal) throw toGraphQLError(request.surfaceRefusal, true);
    costs.screen(request);
    const context = buildContext(
      deps,
      { principal: request.principal, context: callContext(request) },
      request.log,
    );
    return costs.remember(context, request, reply);
  };
  const apolloHandler = fastifyApolloHandler(apollo, { context: httpContext });

  // Before @fastify/websocket's own close (which sends no code): 1001 tells clients to reconnect elsewhere.
  app.addHook('preClose', async () => {
    for (const socket of app.websocketServer?.clients ?? [])
      socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
  });
  await app.register(websocket, { options: { handleProtocols, maxPayload: 1024 * 1024 } });
  registerGraphiqlAssets(app);

  const wsHandler = makeHandler<Record<string, unknown>, SocketExtra>({
    schema,
    subscribe: sharedSubscribe(),
    execute: costs.execute,
    validate: (s, document) => validate(s, document, RULES),
    onConnect: (ctx) => connectSocket(deps, ctx.extra, ctx.connectionParams, ctx.extra.request.ip),
    onSubscribe: async (ctx, _id, payload) => {
      // The key is checked again (and the shared budget charged) for every operation on the socket.
      const refused = await admitOperation(deps, ctx.extra);
      if (refused) return refused;
      const budget = budgetOf(ctx.extra.principal, ctx.extra.request.ip);
      // Parsed and validated here, with HTTP's bounds (a token cap before parsing: deep documents
      // overflow the parser), so a bad document is an error for this operation, not a closed socket.
      let document: DocumentNode;
      try {
        document = parse(payload.query, { maxTokens: MAX_TOKENS });
      } catch (error) {
        const message = error instanceof GraphQLError ? error.message : 'Syntax Error';
        return [new GraphQLError(message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
      }
      const aliased = aliasRefusal(document);
      if (aliased) return [aliased];
      const problems = validate(schema, document, RULES);
      if (problems.length > 0) return [...problems];
      // The rest of what it counts as (one per root field), before it runs.
      const overBudget = await costs.refuseOnSocket(
        budget,
        document,
        payload.operationName,
        payload.variables,
      );
      if (overBudget) return [overBudget];
      return {
        schema,
        document,
        operationName: payload.operationName ?? null,
        variableValues: payload.variables ?? null,
      };
    },
    context: (ctx) =>
      buildContext(
        deps,
        {
          principal: ctx.extra.principal,
          context: { requestId: randomUUID(), accountId: ctx.extra.principal?.accountId },
        },
        app.log.child({ surface: 'graphql-ws' }),
      ),
  });

  // What fails before Apollo runs (a body that is not JSON, another Content-Type, a body over the
  // limit) is answered as GraphQL errors too, not in REST's envelope.
  const errorHandler = (error: Error, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request.headers['content-type']);
    if (appError.status >= 500 && appError.code !== 'SHUTTING_DOWN') {
      request.log.error({ err: error, code: appError.code }, 'GraphQL request failed');
    }
    return reply
      .code(appError.status)
      .header('x-request-id', request.id)
      .type('application/json; charset=utf-8')
      .send({ errors: [toGraphQLError(appError).toJSON()] });
  };

  app.route({
    method: 'GET',
    url: '/graphql',
    config: { auth: SURFACE },
    schema: { hide: true },
    errorHandler,
    wsHandler,
    handler: async (request: FastifyRequest, reply: FastifyReply) =>
      wantsGraphiql(request.headers.accept)
        ? sendGraphiql(reply)
        : apolloHandler.call(app, request as never, reply as never),
  });
  app.route({
    method: 'POST',
    url: '/graphql',
    config: { auth: SURFACE },
    schema: { hide: true },
    errorHandler,
    handler: apolloHandler,
  });
};
