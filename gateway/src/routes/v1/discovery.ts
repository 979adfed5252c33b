import { AgentTypesRequest, Envelope } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { sendCacheable } from '../../http/cacheable';
import { operationId } from '../../http/openapi-operation';
import { scopeAuth } from '../../http/route-auth';
import { restCaller } from '../../http/rpc-route';
import { BEARER, errorResponses } from '../../http/schemas';
import { OPERATIONS } from '../../operations/catalogue';
import { type AnyOperation, invoke, type Operation } from '../../operations/operation';

const CACHING =
  ' Public. Answers carry `Cache-Control` and a strong `ETag`; send it back in `If-None-Match` for a 304.';
const notModified = { 304: z.undefined().describe('Not modified: the ETag still matches') };

interface CatalogueList {
  url: string;
  summary: string;
  description: string;
  /** What the list holds: the success response's description. */
  answers: string;
  /** Its name (the operationId's source), scope (none) and reply are the operation's; it takes no input. */
  operation: AnyOperation;
}

/** The parameterless catalogue lists: each is one operation, served cacheably. */
const LISTS: CatalogueList[] = [
  {
    url: '/v1/industries',
    summary: 'List industries',
    description: 'Industries with industry-specific agent types.',
    answers: 'Every industry',
    operation: OPERATIONS['discovery.industries'],
  },
  {
    url: '/v1/voices',
    summary: 'List text-to-speech voices',
    description: 'Voices with gender, accent, the languages they speak and their provider.',
    answers: 'Every voice',
    operation: OPERATIONS['discovery.voices'],
  },
  {
    url: '/v1/voices/languages',
    summary: 'List supported languages',
    description: 'BCP-47 code, English name and native name.',
    answers: 'Every language an agent can speak',
    operation: OPERATIONS['discovery.languages'],
  },
  {
    url: '/v1/ai-models',
    summary: 'List AI models (beyond the spec)',
    description: 'Models an agent can run on; the one marked `default` is used when ai_model is omitted.',
    answers: 'Every model',
    operation: OPERATIONS['discovery.aiModels'],
  },
];

const agentTypes = OPERATIONS['discovery.agentTypes'];

/** Who may read a list, and how OpenAPI says so. */
function access({ scope }: Pick<Operation, 'scope'>) {
  const auth = scopeAuth(scope);
  return { auth, security: auth.kind === 'public' ? [] : BEARER };
}

export const discoveryRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, deps) => {
  for (const list of LISTS) {
    const { auth, security } = access(list.operation);
    app.get(
      list.url,
      {
        config: { auth },
        schema: {
          operationId: operationId(list.operation.name),
          tags: ['Discovery'],
          summary: list.summary,
          description: `${list.description}${CACHING}`,
          security,
          response: {
            200: Envelope(list.operation.reply).describe(list.answers),
            ...notModified,
            ...errorResponses(),
          },
        },
      },
      async (request, reply) =>
        sendCacheable(request, reply, await invoke(deps, list.operation, {}, restCaller(request))),
    );
  }

  const { auth, security } = access(agentTypes);
  app.get(
    '/v1/industries/:industry/agent-types',
    {
      config: { auth },
      schema: {
        operationId: operationId(agentTypes.name),
        tags: ['Discovery'],
        summary: 'List agent types valid for an industry',
        description:
          "The industry's own types followed by the general types (category `general`). `industry` is an id " +
          `from GET /v1/industries or its display name, URL-encoded; unknown industries are 404.${CACHING}`,
        security,
        params: AgentTypesRequest,
        response: {
          200: Envelope(agentTypes.reply).describe('The agent types, each with the details it collects'),
          ...notModified,
          ...errorResponses(404, 422),
        },
      },
    },
    async (request, reply) =>
      sendCacheable(
        request,
        reply,
        await invoke(deps, agentTypes, request.params, restCaller(request), { validated: true }),
      ),
  );
};
