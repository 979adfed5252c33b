import {
  AgentType,
  AgentTypesRequest,
  AiModel,
  DISCOVERY,
  type Empty,
  Envelope,
  Industry,
  Language,
  type RpcContract,
  Voice,
} from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { sendCacheable } from '../../http/cacheable';
import { callContext } from '../../http/context';
import { PUBLIC } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';

const CACHING =
  ' Public. Answers carry `Cache-Control` and a strong `ETag`; send it back in `If-None-Match` for a 304.';
const notModified = { 304: z.undefined().describe('Not modified: the ETag still matches') };

interface CatalogueList {
  url: string;
  summary: string;
  description: string;
  contract: RpcContract<typeof Empty>;
  item: z.ZodType;
}

/** The parameterless catalogue lists: each is one bus call, served cacheably. */
const LISTS: CatalogueList[] = [
  {
    url: '/v1/industries',
    summary: 'List industries',
    description: 'Industries with industry-specific agent types.',
    contract: DISCOVERY.listIndustries,
    item: Industry,
  },
  {
    url: '/v1/voices',
    summary: 'List text-to-speech voices',
    description: 'Voices with gender, accent, the languages they speak and their provider.',
    contract: DISCOVERY.listVoices,
    item: Voice,
  },
  {
    url: '/v1/voices/languages',
    summary: 'List supported languages',
    description: 'BCP-47 code, English name and native name.',
    contract: DISCOVERY.listLanguages,
    item: Language,
  },
  {
    url: '/v1/ai-models',
    summary: 'List AI models (beyond the spec)',
    description: 'Models an agent can run on; the one marked `default` is used when ai_model is omitted.',
    contract: DISCOVERY.listModels,
    item: AiModel,
  },
];

export const discoveryRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, { client }) => {
  for (const list of LISTS) {
    app.get(
      list.url,
      {
        config: { auth: PUBLIC },
        schema: {
          tags: ['Discovery'],
          summary: list.summary,
          description: `${list.description}${CACHING}`,
          security: [],
          response: { 200: Envelope(z.array(list.item)), ...notModified, ...errorResponses() },
        },
      },
      async (request, reply) =>
        sendCacheable(request, reply, await client.call(list.contract, {}, callContext(request))),
    );
  }

  app.get(
    '/v1/industries/:industry/agent-types',
    {
      config: { auth: PUBLIC },
      schema: {
        tags: ['Discovery'],
        summary: 'List agent types valid for an industry',
        description:
          "The industry's own types followed by the general types (category `general`). `industry` is an id " +
          `from GET /v1/industries or its display name, URL-encoded; unknown industries are 404.${CACHING}`,
        security: [],
        params: AgentTypesRequest,
        response: { 200: Envelope(z.array(AgentType)), ...notModified, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) =>
      sendCacheable(
        request,
        reply,
        await client.call(DISCOVERY.listAgentTypes, request.params, callContext(request)),
      ),
  );
};
