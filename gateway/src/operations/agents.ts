import { AGENT, CreateAgentBody, PageQuery, REQUEST_EXAMPLES, UpdateAgentBody } from '@voice/shared';
import { checkSettings } from './agent-settings';
import { snakeKeys } from './graphql-args';
import { rpcOperation } from './operation';
import { AgentParams, agentOf, ByAgent, byAgent } from './resources';

const tags = ['Agents'];
const NOT_FOUND = 'Another account\u2019s agent is answered exactly like a missing one (404).';

/** Agents themselves; their prompts are in prompts.ts, their webhooks in webhooks.ts. */
export const AGENT_OPERATIONS = {
  'agents.list': rpcOperation({
    graphql: 'Query.agents',
    graphqlField: { type: 'AgentPage!', description: "The account's agents, newest first." },
    rest: {
      method: 'GET',
      url: '/v1/agents',
      tags,
      summary: 'List agents',
      description: 'Newest first, in the page wrapper.',
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the account\u2019s agents',
      errors: [401, 403, 422],
    },
    scope: 'agents:read',
    input: PageQuery,
    contract: AGENT.list,
    toRequest: (input) => input,
  }),
  'agents.get': rpcOperation({
    graphql: 'Query.agent',
    graphqlField: {
      type: 'Agent',
      description: 'One agent; null (NOT_FOUND in errors) when the account has none with this id.',
    },
    rest: {
      method: 'GET',
      url: '/v1/agents/:agent_id',
      tags,
      summary: 'Get an agent',
      description: NOT_FOUND,
      params: AgentParams,
      toInput: byAgent,
      status: 200,
      answers: 'The agent',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.get,
    toRequest: agentOf,
  }),
  'agents.create': rpcOperation({
    graphql: 'Mutation.createAgent',
    graphqlField: {
      type: 'Agent!',
      description: 'Creates an agent.',
      inputArg: { type: 'CreateAgentInput', description: 'The agent to create.' },
    },
    graphqlArgs: ({ input }) => snakeKeys(input, ['webhookConfig']),
    rest: {
      method: 'POST',
      url: '/v1/agents',
      tags,
      summary: 'Create an agent',
      description:
        'Required: name, start_flow, end_flow. agent_type defaults to custom, language to en, voice and ai_model to ' +
        'catalogue defaults. Without `prompt`, a prompt is generated from the type, language, name, description and ' +
        'flows (prompt_source generated); with it, prompt_source is custom. The default voice lists the ' +
        'language exactly when one does (fr-CA gets a Canadian French voice). One 422 lists every problem: ' +
        'the body schema\u2019s, the catalogue values\u2019 and the webhook address\u2019s.',
      body: CreateAgentBody,
      bodyExample: REQUEST_EXAMPLES.createAgent,
      moreIssues: checkSettings('create'),
      status: 201,
      answers: 'The new agent, with its prompt',
      errors: [401, 403, 413, 415, 422],
    },
    scope: 'agents:write',
    input: CreateAgentBody,
    contract: AGENT.create,
    toRequest: (input) => input,
  }),
  'agents.update': rpcOperation({
    graphql: 'Mutation.updateAgent',
    graphqlField: {
      type: 'Agent!',
      description: 'Changes an agent: only the fields sent.',
      inputArg: { type: 'UpdateAgentInput', description: 'The changes.' },
    },
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input, ['webhookConfig']), id }),
    rest: {
      method: 'PATCH',
      url: '/v1/agents/:agent_id',
      tags,
      summary: 'Update an agent',
      description:
        'Partial: omitted fields keep their value. A prompt with prompt_source generated is regenerated when ' +
        'one of its inputs (agent_type, language, name, description, start_flow, end_flow) changes value, and ' +
        'left as it is otherwise; a custom prompt is never regenerated. `prompt: null` returns to the generated ' +
        'prompt. A new language without a voice keeps the current voice if it speaks the language, else takes ' +
        'that language\u2019s default voice; a voice sent must speak the language (422). ' +
        '`webhook_config: null` removes the webhook; within webhook_config an omitted secret keeps the current ' +
        'one and `secret: null` removes it. A secret is any non-empty string of up to 256 characters (use 32 or ' +
        'more random characters); with one, every delivery is signed. CALL_ENDED carries `event`, `timestamp` ' +
        'and in `data` the call record\u2019s fields of the webhook payload (session_id, phone_number, status, ' +
        'durations, times, sentiment, transcript, recording_url, costs, metadata, ...) plus `telephony`: ' +
        '`sentiment` is always positive, neutral or negative (neutral without a conversation) and ' +
        '`recording_url` always a string (`""` when the call produced no audio).',
      params: AgentParams,
      body: UpdateAgentBody,
      bodyExample: REQUEST_EXAMPLES.updateAgent,
      moreIssues: checkSettings('update'),
      // The body alone: a query string is no change.
      toInput: ({ params, body }) => ({ ...(body as UpdateAgentBody), id: params.agent_id }),
      status: 200,
      answers: 'The agent as updated',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'agents:write',
    // extend() keeps the fields' descriptions, not the object's: GraphQL's UpdateAgentInput shows it.
    input: ByAgent.extend(UpdateAgentBody.shape).describe(UpdateAgentBody.description ?? ''),
    contract: AGENT.update,
    toRequest: ({ id, ...changes }) => ({ agent_id: id, changes }),
  }),
  'agents.delete': rpcOperation({
    graphql: 'Mutation.deleteAgent',
    graphqlField: {
      type: 'Boolean!',
      description: 'Deletes an agent; true once deleted. Its calls keep their history.',
    },
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    rest: {
      method: 'DELETE',
      url: '/v1/agents/:agent_id',
      tags,
      summary: 'Delete an agent',
      description: 'Its prompt versions go with it; the calls it made keep their history.',
      params: AgentParams,
      toInput: byAgent,
      status: 204,
      answers: 'Deleted; no content',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:write',
    input: ByAgent,
    contract: AGENT.delete,
    toRequest: agentOf,
  }),
};
