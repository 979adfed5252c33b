import {
  AGENT,
  CHECK_SETTINGS_MAX,
  type CheckAgentSettingsRequest,
  CreateAgentBody,
  PageQuery,
  REQUEST_EXAMPLES,
  SaveInstructionsBody,
  SavePromptVersionBody,
  UpdateAgentBody,
  Uuid,
} from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { idFrom, type MoreIssuesContext, type RpcRoute, registerRpcRoutes } from '../../http/rpc-route';
import { OPERATIONS } from '../../operations/catalogue';

const AgentParams = z.object({ agent_id: Uuid });
const VersionParams = AgentParams.extend({ version_id: Uuid });
/** The agent in the path is the operation's `id`. */
const byAgent = idFrom('agent_id');
const tags = ['Agents'];
const NOT_FOUND = 'Another account\u2019s agent is answered exactly like a missing one (404).';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string the check can take; anything else is the schema's to report. */
function loose(value: unknown, max = CHECK_SETTINGS_MAX): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** What the agent service checks beyond the schema, read from a body of any shape. */
function settingsRequest(
  rawBody: unknown,
  mode: CheckAgentSettingsRequest['mode'],
): CheckAgentSettingsRequest {
  const body = isRecord(rawBody) ? rawBody : {};
  const request: CheckAgentSettingsRequest = { mode };
  for (const field of ['agent_type', 'language', 'voice', 'ai_model'] as const) {
    const value = loose(body[field]);
    if (value !== undefined) request[field] = value;
  }
  const url = isRecord(body.webhook_config) ? loose(body.webhook_config.url, 2048) : undefined;
  if (url !== undefined) request.webhook_url = url;
  return request;
}

/** Catalogue and webhook address problems, next to the schema's, in the same 422. */
const checkSettings =
  (mode: CheckAgentSettingsRequest['mode']) =>
  (rawBody: unknown, { client, context }: MoreIssuesContext) =>
    client.call(AGENT.checkSettings, settingsRequest(rawBody, mode), context);

export const AGENT_ROUTES: RpcRoute[] = [
  {
    method: 'GET',
    url: '/v1/agents',
    operation: OPERATIONS['agents.list'],
    tags,
    summary: 'List agents',
    description: 'Newest first, in the page wrapper.',
    querystring: PageQuery,
    status: 200,
    answers: 'A page of the account\u2019s agents',
    errors: [401, 403, 422],
  },
  {
    method: 'POST',
    url: '/v1/agents',
    operation: OPERATIONS['agents.create'],
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
  {
    method: 'GET',
    url: '/v1/agents/:agent_id',
    operation: OPERATIONS['agents.get'],
    tags,
    summary: 'Get an agent',
    description: NOT_FOUND,
    params: AgentParams,
    toInput: byAgent,
    status: 200,
    answers: 'The agent',
    errors: [401, 403, 404, 422],
  },
  {
    method: 'PATCH',
    url: '/v1/agents/:agent_id',
    operation: OPERATIONS['agents.update'],
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
  {
    method: 'DELETE',
    url: '/v1/agents/:agent_id',
    operation: OPERATIONS['agents.delete'],
    tags,
    summary: 'Delete an agent',
    description: 'Its prompt versions go with it; the calls it made keep their history.',
    params: AgentParams,
    toInput: byAgent,
    status: 204,
    answers: 'Deleted; no content',
    errors: [401, 403, 404, 422],
  },
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt',
    operation: OPERATIONS['agents.prompt'],
    tags,
    summary: "Get the agent's prompt",
    params: AgentParams,
    toInput: byAgent,
    status: 200,
    answers: 'The agent\u2019s current prompt and where it came from',
    errors: [401, 403, 404, 422],
  },
  {
    method: 'PUT',
    url: '/v1/agents/:agent_id/instructions',
    operation: OPERATIONS['agents.saveInstructions'],
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
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt-versions',
    operation: OPERATIONS['agents.versions.list'],
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
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/prompt-versions',
    operation: OPERATIONS['agents.versions.save'],
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
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/prompt-versions/status',
    operation: OPERATIONS['agents.versions.status'],
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
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/prompt-versions/:version_id/restore',
    operation: OPERATIONS['agents.versions.restore'],
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
  {
    method: 'DELETE',
    url: '/v1/agents/:agent_id/prompt-versions/:version_id',
    operation: OPERATIONS['agents.versions.delete'],
    tags,
    summary: 'Delete a prompt version',
    description: 'The active version cannot be deleted (409).',
    params: VersionParams,
    toInput: byAgent,
    status: 204,
    answers: 'Deleted; no content',
    errors: [401, 403, 404, 409, 422],
  },
];

export const agentRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  registerRpcRoutes(app, deps, AGENT_ROUTES);
};
