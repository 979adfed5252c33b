import { AgentTypesRequest, DISCOVERY, Empty } from '@voice/shared';
import { rpcOperation } from './operation';

const tags = ['Discovery'];

/** What agents can be made of: public catalogue lists, answered cacheably. */
export const DISCOVERY_OPERATIONS = {
  'discovery.industries': rpcOperation({
    graphql: 'Query.industries',
    graphqlField: { type: '[Industry!]!', description: 'Industries with specialised agent types.' },
    rest: {
      method: 'GET',
      url: '/v1/industries',
      tags,
      summary: 'List industries',
      description: 'Industries with industry-specific agent types.',
      status: 200,
      answers: 'Every industry',
      errors: [],
      cacheable: true,
    },
    scope: null,
    input: Empty,
    contract: DISCOVERY.listIndustries,
    toRequest: () => ({}),
  }),
  'discovery.agentTypes': rpcOperation({
    graphql: 'Query.agentTypes',
    graphqlField: {
      type: '[AgentType!]!',
      description: 'The general agent types and those of one industry.',
    },
    rest: {
      method: 'GET',
      url: '/v1/industries/:industry/agent-types',
      tags,
      summary: 'List agent types valid for an industry',
      description:
        "The industry's own types followed by the general types (category `general`). `industry` is an id " +
        'from GET /v1/industries or its display name, URL-encoded; unknown industries are 404.',
      params: AgentTypesRequest,
      status: 200,
      answers: 'The agent types, each with the details it collects',
      errors: [404, 422],
      cacheable: true,
    },
    scope: null,
    input: AgentTypesRequest,
    contract: DISCOVERY.listAgentTypes,
    toRequest: (input) => input,
  }),
  'discovery.voices': rpcOperation({
    graphql: 'Query.voices',
    graphqlField: { type: '[Voice!]!', description: 'Voices an agent can speak with.' },
    rest: {
      method: 'GET',
      url: '/v1/voices',
      tags,
      summary: 'List text-to-speech voices',
      description: 'Voices with gender, accent, the languages they speak and their provider.',
      status: 200,
      answers: 'Every voice',
      errors: [],
      cacheable: true,
    },
    scope: null,
    input: Empty,
    contract: DISCOVERY.listVoices,
    toRequest: () => ({}),
  }),
  'discovery.languages': rpcOperation({
    graphql: 'Query.languages',
    graphqlField: { type: '[Language!]!', description: 'Languages an agent can speak.' },
    rest: {
      method: 'GET',
      url: '/v1/voices/languages',
      tags,
      summary: 'List supported languages',
      description: 'BCP-47 code, English name and native name.',
      status: 200,
      answers: 'Every language an agent can speak',
      errors: [],
      cacheable: true,
    },
    scope: null,
    input: Empty,
    contract: DISCOVERY.listLanguages,
    toRequest: () => ({}),
  }),
  'discovery.aiModels': rpcOperation({
    graphql: 'Query.aiModels',
    graphqlField: {
      type: '[AiModel!]!',
      description:
        'Models an agent can run on; the default one is used when aiModel is omitted (beyond the spec).',
    },
    rest: {
      method: 'GET',
      url: '/v1/ai-models',
      tags,
      summary: 'List AI models (beyond the spec)',
      description: 'Models an agent can run on; the one marked `default` is used when ai_model is omitted.',
      status: 200,
      answers: 'Every model',
      errors: [],
      cacheable: true,
    },
    scope: null,
    input: Empty,
    contract: DISCOVERY.listModels,
    toRequest: () => ({}),
  }),
};
