import {
  AgentType,
  AgentTypesRequest,
  AiModel,
  DISCOVERY,
  Envelope,
  Industry,
  Language,
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

export const discoveryRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, { client }) => {
  const common = { config: { auth: PUBLIC } } as const;

  app.get(
    '/v1/industries',
    {
      ...common,
      schema: {
        tags: ['Discovery'],
        summary: 'List industries',
        description: `Industries with industry-specific agent types.${CACHING}`,
        security: [],
        response: { 200: Envelope(z.array(Industry)), ...notModified, ...errorResponses() },
      },
    },
    async (request, reply) =>
      sendCacheable(request, reply, await client.call(DISCOVERY.listIndustries, {}, callContext(request))),
  );

  app.get(
    '/v1/industries/:industry/agent-types',
    {
      ...common,
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

  app.get(
    '/v1/voices',
    {
      ...common,
      schema: {
        tags: ['Discovery'],
        summary: 'List text-to-speech voices',
        description: `Voices with gender, accent, the languages they speak and their provider.${CACHING}`,
        security: [],
        response: { 200: Envelope(z.array(Voice)), ...notModified, ...errorResponses() },
      },
    },
    async (request, reply) =>
      sendCacheable(request, reply, await client.call(DISCOVERY.listVoices, {}, callContext(request))),
  );

  app.get(
    '/v1/voices/languages',
    {
      ...common,
      schema: {
        tags: ['Discovery'],
        summary: 'List supported languages',
        description: `BCP-47 code, English name and native name.${CACHING}`,
        security: [],
        response: { 200: Envelope(z.array(Language)), ...notModified, ...errorResponses() },
      },
    },
    async (request, reply) =>
      sendCacheable(request, reply, await client.call(DISCOVERY.listLanguages, {}, callContext(request))),
  );

  app.get(
    '/v1/ai-models',
    {
      ...common,
      schema: {
        tags: ['Discovery'],
        summary: 'List AI models (beyond the spec)',
        description: `Models an agent can run on; the one marked \`default\` is used when ai_model is omitted.${CACHING}`,
        security: [],
        response: { 200: Envelope(z.array(AiModel)), ...notModified, ...errorResponses() },
      },
    },
    async (request, reply) =>
      sendCacheable(request, reply, await client.call(DISCOVERY.listModels, {}, callContext(request))),
  );
};
