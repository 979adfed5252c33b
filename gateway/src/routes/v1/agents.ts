import {
  AGENT,
  CreateAgentBody,
  PageQuery,
  SaveInstructionsBody,
  SavePromptVersionBody,
  UpdateAgentBody,
  Uuid,
} from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { requireScope } from '../../http/route-auth';
import { type RpcRoute, registerRpcRoutes } from '../../http/rpc-route';

const AgentParams = z.object({ agent_id: Uuid });
const VersionParams = AgentParams.extend({ version_id: Uuid });
const read = requireScope('agents:read');
const write = requireScope('agents:write');
const tags = ['Agents'];
const NOT_FOUND = 'Another account\u2019s agent is answered exactly like a missing one (404).';

export const AGENT_ROUTES: RpcRoute[] = [
  {
    method: 'GET',
    url: '/v1/agents',
    contract: AGENT.list,
    auth: read,
    tags,
    summary: 'List agents',
    description: 'Newest first, in the page wrapper.',
    querystring: PageQuery,
    status: 200,
    errors: [401, 403, 422],
  },
  {
    method: 'POST',
    url: '/v1/agents',
    contract: AGENT.create,
    auth: write,
    tags,
    summary: 'Create an agent',
    description:
      'Required: name, start_flow, end_flow. agent_type defaults to custom, language to en, voice and ai_model to ' +
      'catalogue defaults. Without `prompt`, a prompt is generated from the type, language, name, description and ' +
      'flows (prompt_source generated); with it, prompt_source is custom.',
    body: CreateAgentBody,
    status: 201,
    errors: [401, 403, 413, 415, 422],
  },
  {
    method: 'GET',
    url: '/v1/agents/:agent_id',
    contract: AGENT.get,
    auth: read,
    tags,
    summary: 'Get an agent',
    description: NOT_FOUND,
    params: AgentParams,
    status: 200,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'PATCH',
    url: '/v1/agents/:agent_id',
    contract: AGENT.update,
    auth: write,
    tags,
    summary: 'Update an agent',
    description:
      'Partial: omitted fields keep their value. A generated prompt is regenerated when its inputs change; ' +
      '`prompt: null` returns to the generated prompt. `webhook_config: null` removes the webhook; within ' +
      'webhook_config an omitted secret keeps the current one and `secret: null` removes it.',
    params: AgentParams,
    body: UpdateAgentBody,
    toRequest: ({ params, body }) => ({ agent_id: params.agent_id, changes: body }),
    status: 200,
    errors: [401, 403, 404, 413, 415, 422],
  },
  {
    method: 'DELETE',
    url: '/v1/agents/:agent_id',
    contract: AGENT.delete,
    auth: write,
    tags,
    summary: 'Delete an agent',
    description: 'Its prompt versions go with it; the calls it made keep their history.',
    params: AgentParams,
    status: 204,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt',
    contract: AGENT.getPrompt,
    auth: read,
    tags,
    summary: "Get the agent's prompt",
    params: AgentParams,
    status: 200,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'PUT',
    url: '/v1/agents/:agent_id/instructions',
    contract: AGENT.saveInstructions,
    auth: write,
    tags,
    summary: 'Save agent instructions',
    description: 'The instructions become the agent\u2019s prompt (prompt_source custom).',
    params: AgentParams,
    body: SaveInstructionsBody,
    status: 200,
    errors: [401, 403, 404, 413, 415, 422],
  },
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt-versions',
    contract: AGENT.listPromptVersions,
    auth: read,
    tags,
    summary: 'List prompt versions',
    description: 'Newest version first, in the page wrapper; `is_active` marks the active one.',
    params: AgentParams,
    querystring: PageQuery,
    status: 200,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/prompt-versions',
    contract: AGENT.savePromptVersion,
    auth: write,
    tags,
    summary: 'Save a prompt version',
    description: 'Snapshots the current prompt (immutable) and makes the snapshot the active version.',
    params: AgentParams,
    body: z.preprocess((body) => body ?? {}, SavePromptVersionBody),
    status: 201,
    errors: [401, 403, 404, 415, 422],
  },
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt-versions/status',
    contract: AGENT.promptVersionStatus,
    auth: read,
    tags,
    summary: 'Prompt version status',
    description:
      'The active version, whether the current prompt differs from it, and how many versions exist.',
    params: AgentParams,
    status: 200,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/prompt-versions/:version_id/restore',
    contract: AGENT.restorePromptVersion,
    auth: write,
    tags,
    summary: 'Restore a prompt version',
    description: 'The version\u2019s prompt becomes current (prompt_source custom) and the version active.',
    params: VersionParams,
    status: 200,
    errors: [401, 403, 404, 422],
  },
  {
    method: 'DELETE',
    url: '/v1/agents/:agent_id/prompt-versions/:version_id',
    contract: AGENT.deletePromptVersion,
    auth: write,
    tags,
    summary: 'Delete a prompt version',
    description: 'The active version cannot be deleted (409).',
    params: VersionParams,
    status: 204,
    errors: [401, 403, 404, 409, 422],
  },
];

export const agentRoutes: FastifyPluginAsync<GatewayDeps> = async (app, { client }) => {
  registerRpcRoutes(app, client, AGENT_ROUTES);
};
