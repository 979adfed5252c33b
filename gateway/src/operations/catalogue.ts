import {
  AGENT,
  AgentTypesRequest,
  BulkRedeliverShape,
  boundedRange,
  CALL,
  CAMPAIGN,
  Campaign,
  CreateAgentBody,
  CreateCampaignBody,
  DISCOVERY,
  Empty,
  ListCallsQuery,
  ListCampaignsQuery,
  ListContactsQuery,
  MakeCallBody,
  PageQuery,
  SaveInstructionsBody,
  SavePromptVersionBody,
  UpdateAgentBody,
  Uuid,
  WEBHOOK,
} from '@voice/shared';
import { z } from 'zod';
import { createCampaign } from '../clients/campaigns';
import { withRecordingUrl, withRecordingUrls } from '../recordings/links';
import { plainArgs, present, snakeKeys } from './graphql-args';
import { me } from './me';
import { named, type Operation, rpcOperation, type Unnamed } from './operation';

/** The resource an operation acts on; its description is its GraphQL argument's. */
const byId = (what: string) => z.object({ id: Uuid.describe(`The ${what}\u2019s id`) });
const ByAgent = byId('agent');
const ByCall = byId('call');
const ByCampaign = byId('campaign');
const ByVersion = ByAgent.extend({ version_id: Uuid.describe('The prompt version\u2019s id') });
const agentOf = ({ id }: { id: string }) => ({ agent_id: id });
const campaignOf = ({ id }: { id: string }) => ({ campaign_id: id });

/**
 * Every operation of the public API, keyed by its name: its tRPC path, and the source of its REST
 * operationId. Every surface runs them through invoke (operation.ts): the REST routes
 * (gateway/src/routes/v1) name their operation, as do the GraphQL resolvers and the tRPC router, so
 * scope, input, reply, transform and idempotency are written here once. The inputs are REST's
 * shapes (snake_case bodies and queries; the resource named `id`).
 */
export const OPERATIONS = named({
  'discovery.industries': rpcOperation({
    graphql: 'Query.industries',
    scope: null,
    input: Empty,
    contract: DISCOVERY.listIndustries,
    toRequest: () => ({}),
  }),
  'discovery.agentTypes': rpcOperation({
    graphql: 'Query.agentTypes',
    scope: null,
    input: AgentTypesRequest,
    contract: DISCOVERY.listAgentTypes,
    toRequest: (input) => input,
  }),
  'discovery.voices': rpcOperation({
    graphql: 'Query.voices',
    scope: null,
    input: Empty,
    contract: DISCOVERY.listVoices,
    toRequest: () => ({}),
  }),
  'discovery.languages': rpcOperation({
    graphql: 'Query.languages',
    scope: null,
    input: Empty,
    contract: DISCOVERY.listLanguages,
    toRequest: () => ({}),
  }),
  'discovery.aiModels': rpcOperation({
    graphql: 'Query.aiModels',
    scope: null,
    input: Empty,
    contract: DISCOVERY.listModels,
    toRequest: () => ({}),
  }),
  me,
  'agents.list': rpcOperation({
    graphql: 'Query.agents',
    scope: 'agents:read',
    input: PageQuery,
    contract: AGENT.list,
    toRequest: (input) => input,
  }),
  'agents.get': rpcOperation({
    graphql: 'Query.agent',
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.get,
    toRequest: agentOf,
  }),
  'agents.create': rpcOperation({
    graphql: 'Mutation.createAgent',
    graphqlArgs: ({ input }) => snakeKeys(input, ['webhookConfig']),
    scope: 'agents:write',
    input: CreateAgentBody,
    contract: AGENT.create,
    toRequest: (input) => input,
  }),
  'agents.update': rpcOperation({
    graphql: 'Mutation.updateAgent',
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input, ['webhookConfig']), id }),
    scope: 'agents:write',
    // extend() keeps the fields' descriptions, not the object's: GraphQL's UpdateAgentInput shows it.
    input: ByAgent.extend(UpdateAgentBody.shape).describe(UpdateAgentBody.description ?? ''),
    contract: AGENT.update,
    toRequest: ({ id, ...changes }) => ({ agent_id: id, changes }),
  }),
  'agents.delete': rpcOperation({
    graphql: 'Mutation.deleteAgent',
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    scope: 'agents:write',
    input: ByAgent,
    contract: AGENT.delete,
    toRequest: agentOf,
  }),
  'agents.prompt': rpcOperation({
    graphql: 'Query.agentPrompt',
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.getPrompt,
    toRequest: agentOf,
  }),
  'agents.saveInstructions': rpcOperation({
    graphql: 'Mutation.saveAgentInstructions',
    scope: 'agents:write',
    input: ByAgent.extend(SaveInstructionsBody.shape),
    contract: AGENT.saveInstructions,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'agents.versions.list': rpcOperation({
    graphql: 'Agent.promptVersions',
    graphqlArgs: (args, agent) => ({ id: agent.id, ...plainArgs(args) }),
    scope: 'agents:read',
    input: ByAgent.extend(PageQuery.shape),
    contract: AGENT.listPromptVersions,
    toRequest: ({ id, ...page }) => ({ agent_id: id, ...page }),
  }),
  'agents.versions.save': rpcOperation({
    graphql: 'Mutation.savePromptVersion',
    graphqlArgs: ({ agentId, label }) => present({ id: agentId, label }),
    scope: 'agents:write',
    input: ByAgent.extend(SavePromptVersionBody.shape),
    contract: AGENT.savePromptVersion,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'agents.versions.status': rpcOperation({
    graphql: 'Agent.promptVersionStatus',
    graphqlArgs: (_args, agent) => ({ id: agent.id }),
    scope: 'agents:read',
    input: ByAgent,
    contract: AGENT.promptVersionStatus,
    toRequest: agentOf,
  }),
  'agents.versions.restore': rpcOperation({
    graphql: 'Mutation.restorePromptVersion',
    graphqlArgs: ({ agentId, versionId }) => ({ id: agentId, version_id: versionId }),
    scope: 'agents:write',
    input: ByVersion,
    contract: AGENT.restorePromptVersion,
    toRequest: ({ id, version_id }) => ({ agent_id: id, version_id }),
  }),
  'agents.versions.delete': rpcOperation({
    graphql: 'Mutation.deletePromptVersion',
    graphqlArgs: ({ agentId, versionId }) => ({ id: agentId, version_id: versionId }),
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    scope: 'agents:write',
    input: ByVersion,
    contract: AGENT.deletePromptVersion,
    toRequest: ({ id, version_id }) => ({ agent_id: id, version_id }),
  }),
  'agents.webhookDeliveries': rpcOperation({
    graphql: 'Agent.webhookDeliveries',
    graphqlArgs: (args, agent) => ({ id: agent.id, ...plainArgs(args) }),
    scope: 'agents:read',
    input: ByAgent.extend(PageQuery.shape),
    contract: WEBHOOK.listDeliveries,
    toRequest: ({ id, ...page }) => ({ agent_id: id, ...page }),
  }),
  // A webhook is part of an agent's configuration, so sending one again takes the agent write scope.
  'webhooks.redeliver': rpcOperation({
    graphql: 'Mutation.redeliverWebhook',
    graphqlArgs: ({ agentId, deliveryId }) => ({ id: agentId, delivery_id: deliveryId }),
    scope: 'agents:write',
    input: ByAgent.extend({ delivery_id: Uuid.describe('The delivery to send again') }),
    contract: WEBHOOK.redeliver,
    toRequest: ({ id, delivery_id }) => ({ agent_id: id, delivery_id }),
  }),
  'webhooks.redeliverFailed': rpcOperation({
    graphql: 'Mutation.redeliverFailedWebhooks',
    graphqlArgs: ({ agentId, input }) => ({ ...present(snakeKeys(input)), id: agentId }),
    scope: 'agents:write',
    input: ByAgent.extend(BulkRedeliverShape).superRefine(boundedRange),
    contract: WEBHOOK.redeliverFailed,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'webhooks.sendTest': rpcOperation({
    graphql: 'Mutation.sendWebhookTest',
    graphqlArgs: ({ agentId }) => ({ id: agentId }),
    scope: 'agents:write',
    input: ByAgent,
    contract: WEBHOOK.sendTest,
    toRequest: agentOf,
  }),
  'calls.create': rpcOperation({
    graphql: 'Mutation.makeCall',
    graphqlArgs: ({ input }) => snakeKeys(input),
    scope: 'calls:write',
    input: MakeCallBody,
    contract: CALL.create,
    toRequest: (input) => input,
    transform: (call, { recordings }) => withRecordingUrl(call, recordings),
    idempotent: true,
  }),
  'calls.list': rpcOperation({
    graphql: 'Query.calls',
    scope: 'calls:read',
    input: ListCallsQuery,
    contract: CALL.list,
    toRequest: (input) => input,
    transform: (page, { recordings }) => withRecordingUrls(page, recordings),
  }),
  'calls.get': rpcOperation({
    graphql: 'Query.call',
    scope: 'calls:read',
    input: ByCall,
    contract: CALL.get,
    toRequest: ({ id }) => ({ call_id: id }),
    transform: (call, { recordings }) => withRecordingUrl(call, recordings),
  }),
  'campaigns.create': {
    graphql: 'Mutation.createCampaign',
    graphqlArgs: ({ input }) => present(snakeKeys(input, ['retryConfig'])),
    scope: 'campaigns:write',
    input: CreateCampaignBody,
    reply: Campaign,
    // Several bus calls (a staged upload), so not an rpcOperation; answers what the last, start, does.
    run: (deps, input, context) => createCampaign(deps.client, input, context),
    idempotent: true,
  } satisfies Unnamed<Operation<typeof CreateCampaignBody, Campaign>>,
  'campaigns.list': rpcOperation({
    graphql: 'Query.campaigns',
    scope: 'campaigns:read',
    input: ListCampaignsQuery,
    contract: CAMPAIGN.list,
    toRequest: (input) => input,
  }),
  'campaigns.get': rpcOperation({
    graphql: 'Query.campaign',
    scope: 'campaigns:read',
    input: ByCampaign,
    contract: CAMPAIGN.get,
    toRequest: campaignOf,
  }),
  'campaigns.pause': rpcOperation({
    graphql: 'Mutation.pauseCampaign',
    scope: 'campaigns:write',
    input: ByCampaign,
    contract: CAMPAIGN.pause,
    toRequest: campaignOf,
  }),
  'campaigns.resume': rpcOperation({
    graphql: 'Mutation.resumeCampaign',
    scope: 'campaigns:write',
    input: ByCampaign,
    contract: CAMPAIGN.resume,
    toRequest: campaignOf,
  }),
  'campaigns.cancel': rpcOperation({
    graphql: 'Mutation.cancelCampaign',
    scope: 'campaigns:write',
    input: ByCampaign,
    contract: CAMPAIGN.cancel,
    toRequest: campaignOf,
  }),
  'campaigns.contacts': rpcOperation({
    graphql: 'Campaign.contacts',
    graphqlArgs: (args, campaign) => ({ id: campaign.id, ...plainArgs(args) }),
    scope: 'campaigns:read',
    input: ByCampaign.extend(ListContactsQuery.shape),
    contract: CAMPAIGN.listContacts,
    toRequest: ({ id, ...query }) => ({ campaign_id: id, ...query }),
  }),
});

export type OperationName = keyof typeof OPERATIONS;
