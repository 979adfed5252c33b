import {
  AGENT,
  PageQuery,
  REQUEST_EXAMPLES,
  SaveInstructionsBody,
  SavePromptVersionBody,
  Uuid,
} from '@voice/shared';
import { z } from 'zod';
import { rpcOperation } from './operation';
import { AgentParams, agentOf, ByAgent, byAgent } from './resources';

const tags = ['Agents'];
const ByVersion = ByAgent.extend({ version_id: Uuid.describe('The prompt version\u2019s id') });
const VersionParams = AgentParams.extend({ version_id: Uuid });
const versionOf = ({ id, version_id }: z.output<typeof ByVersion>) => ({ agent_id: id, version_id });

/** An agent's prompt and its saved versions. */
export const PROMPT_OPERATIONS = {
  'agents.prompt': rpcOperation({
    graphql: 'Query.agentPrompt',
    graphqlField: {
      type: 'AgentPrompt',
      description: "An agent's prompt and where it came from; null (NOT_FOUND) when there is no such agent.",
    },
    rest: {
      method: 'GET',
      url: '/v1/agents/:agent_id/prompt',
      tags,
      summary: "Get the agent's prompt",
      params: AgentParams,
      toInput: byAgent,
      status: 200,
      answers: 'The agent\u2019s current prompt and where it came from',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.getPrompt,
    toRequest: agentOf,
  }),
  'agents.saveInstructions': rpcOperation({
    graphql: 'Mutation.saveAgentInstructions',
    graphqlField: {
      type: 'AgentPrompt!',
      description: "Replaces an agent's prompt with custom instructions.",
    },
    rest: {
      method: 'PUT',
      url: '/v1/agents/:agent_id/instructions',
      tags,
      summary: 'Save agent instructions',
      description: 'The instructions become the agent\u2019s prompt (prompt_source custom).',
      params: AgentParams,
      toInput: byAgent,
      body: SaveInstructionsBody,
      bodyExample: REQUEST_EXAMPLES.saveInstructions,
      status: 200,
      answers: 'The agent\u2019s prompt, now the instructions',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'agents:write',
    input: ByAgent.extend(SaveInstructionsBody.shape),
    contract: AGENT.saveInstructions,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'agents.versions.list': rpcOperation({
    graphql: 'Agent.promptVersions',
    graphqlField: { type: 'PromptVersionPage!', description: "The agent's prompt versions, newest first." },
    rest: {
      method: 'GET',
      url: '/v1/agents/:agent_id/prompt-versions',
      tags,
      summary: 'List prompt versions',
      description: 'Newest version first, in the page wrapper; `is_active` marks the active one.',
      params: AgentParams,
      toInput: byAgent,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the agent\u2019s prompt versions',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:read',
    input: ByAgent.extend(PageQuery.shape),
    contract: AGENT.listPromptVersions,
    toRequest: ({ id, ...page }) => ({ agent_id: id, ...page }),
  }),
  'agents.versions.save': rpcOperation({
    graphql: 'Mutation.savePromptVersion',
    graphqlField: {
      type: 'PromptVersion!',
      description: "Saves the agent's current prompt as a new version, which becomes the active one.",
      idArg: 'agentId',
    },
    rest: {
      method: 'POST',
      url: '/v1/agents/:agent_id/prompt-versions',
      tags,
      summary: 'Save a prompt version',
      description:
        'Snapshots the current prompt and its prompt_source (immutable) and makes the snapshot the active ' +
        'version. Version numbers count up per agent and are never reused, even after a delete. The body ' +
        'is optional.',
      params: AgentParams,
      toInput: byAgent,
      body: z.preprocess((body) => body ?? {}, SavePromptVersionBody),
      bodyExample: REQUEST_EXAMPLES.savePromptVersion,
      status: 201,
      answers: 'The new version, now active',
      errors: [401, 403, 404, 415, 422],
    },
    scope: 'agents:write',
    input: ByAgent.extend(SavePromptVersionBody.shape),
    contract: AGENT.savePromptVersion,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'agents.versions.status': rpcOperation({
    graphql: 'Agent.promptVersionStatus',
    graphqlField: {
      type: 'PromptVersionStatus!',
      description:
        'The active prompt version, whether the current prompt differs from it, and how many versions exist.',
    },
    rest: {
      method: 'GET',
      url: '/v1/agents/:agent_id/prompt-versions/status',
      tags,
      summary: 'Prompt version status',
      description:
        'The active version, whether the current prompt differs from it, and how many versions exist. With ' +
        'no active version (none saved yet) `current_differs_from_active` is true: the current prompt is not ' +
        'saved in any version.',
      params: AgentParams,
      toInput: byAgent,
      status: 200,
      answers: 'The active version and whether the current prompt differs from it',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.promptVersionStatus,
    toRequest: agentOf,
  }),
  'agents.versions.restore': rpcOperation({
    graphql: 'Mutation.restorePromptVersion',
    graphqlField: {
      type: 'Agent!',
      description: "Makes a saved version the agent's prompt again.",
      idArg: 'agentId',
    },
    rest: {
      method: 'POST',
      url: '/v1/agents/:agent_id/prompt-versions/:version_id/restore',
      tags,
      summary: 'Restore a prompt version',
      description:
        'The version\u2019s prompt becomes current with the prompt_source it was saved with, and the version ' +
        'active. A restored custom prompt stays as it is through later PATCHes; a restored generated prompt ' +
        'stays until a PATCH changes one of its inputs, which regenerates it.',
      params: VersionParams,
      toInput: byAgent,
      status: 200,
      answers: 'The agent, with the version\u2019s prompt',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:write',
    input: ByVersion,
    contract: AGENT.restorePromptVersion,
    toRequest: versionOf,
  }),
  'agents.versions.delete': rpcOperation({
    graphql: 'Mutation.deletePromptVersion',
    graphqlField: {
      type: 'Boolean!',
      description: 'Deletes a saved prompt version; true once deleted.',
      idArg: 'agentId',
    },
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    rest: {
      method: 'DELETE',
      url: '/v1/agents/:agent_id/prompt-versions/:version_id',
      tags,
      summary: 'Delete a prompt version',
      description: 'The active version cannot be deleted (409).',
      params: VersionParams,
      toInput: byAgent,
      status: 204,
      answers: 'Deleted; no content',
      errors: [401, 403, 404, 409, 422],
    },
    scope: 'agents:write',
    input: ByVersion,
    contract: AGENT.deletePromptVersion,
    toRequest: versionOf,
  }),
};
