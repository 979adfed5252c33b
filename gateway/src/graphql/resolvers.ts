import {
  CALL_END_REASONS,
  CALL_STATUSES,
  CAMPAIGN_STATUSES,
  CARRIERS,
  type Call,
  type Campaign,
  CONTACT_STATES,
  DELIVERY_STATUSES,
  DETAILS_STATUSES,
  DetailFieldType,
  ENDED_BY,
  PLANS,
  RETRYABLE_STATUSES,
  SCOPES,
  SKIP_REASONS,
  WEBHOOK_EVENT_KINDS,
} from '@voice/shared';
import { LIVE_OPERATIONS, openLive } from '../operations/live';
import { withRecordingUrl } from '../recordings/links';
import { type GraphQLContext, run } from './context';
import { DateTimeScalar, JsonScalar } from './scalars';

/**
 * One payload per call event, whichever subscriber it goes to (the hub hands them all the same
 * event): its link is signed once, and subscribers running the same operation under the same key
 * share one execution of it (see shared-subscribe.ts).
 */
const callPayloads = new WeakMap<object, { callStatusChanged: ReturnType<typeof withRecordingUrl> }>();
function callPayload(
  call: Parameters<typeof withRecordingUrl>[0],
  links: Parameters<typeof withRecordingUrl>[1],
) {
  let payload = callPayloads.get(call);
  if (!payload) {
    payload = { callStatusChanged: withRecordingUrl(call, links) };
    callPayloads.set(call, payload);
  }
  return payload;
}

type Args = Record<string, unknown>;
type Resolver<S = unknown> = (source: S, args: Args, ctx: GraphQLContext) => unknown;

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A GraphQL input as the operation takes it: keys in snake_case, recursing only into the nested
 * inputs named (never into JSON values such as metadata or contact rows, which are the client's).
 * Null stays null (it means "remove" on update); absent stays absent.
 */
function snakeKeys(input: unknown, nested: readonly string[] = []): Args {
  const out: Args = {};
  for (const [key, value] of Object.entries((input ?? {}) as Args)) {
    out[snake(key)] = nested.includes(key) && value && typeof value === 'object' ? snakeKeys(value) : value;
  }
  return out;
}

/** Arguments with a value (GraphQL null for an optional filter means "no filter"). */
function present(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
}

/** The GraphQL enum UPPER_CASE names over the values the records carry (`agents:read` is AGENTS_READ). */
const enumOf = (values: readonly string[]) =>
  Object.fromEntries(values.map((v) => [v.toUpperCase().replace(/[^A-Z0-9_]/g, '_'), v]));

const pageArgs = (args: Args) => present({ page: args.page, page_size: args.pageSize });

export const resolvers = {
  DateTime: DateTimeScalar,
  JSON: JsonScalar,
  CallStatus: enumOf(CALL_STATUSES),
  CampaignStatus: enumOf(CAMPAIGN_STATUSES),
  ContactState: enumOf(CONTACT_STATES),
  RetryableStatus: enumOf(RETRYABLE_STATUSES),
  Sentiment: enumOf(['positive', 'neutral', 'negative']),
  Carrier: enumOf(CARRIERS),
  PromptSource: enumOf(['generated', 'custom']),
  DeliveryStatus: enumOf(DELIVERY_STATUSES),
  WebhookEvent: enumOf(WEBHOOK_EVENT_KINDS),
  AgentTypeCategory: enumOf(['general', 'industry']),
  DetailFieldType: enumOf(DetailFieldType.options),
  VoiceGender: enumOf(['female', 'male', 'neutral']),
  CallEndReason: enumOf(CALL_END_REASONS),
  EndedBy: enumOf(ENDED_BY),
  TranscriptRole: enumOf(['agent', 'user']),
  DetailsCollectionStatus: enumOf(DETAILS_STATUSES),
  SkipReason: enumOf(SKIP_REASONS),
  Plan: enumOf(PLANS),
  Scope: enumOf(SCOPES),

  Query: {
    industries: (_s, _a, ctx) => run(ctx, 'discovery.industries', {}),
    agentTypes: (_s, args, ctx) => run(ctx, 'discovery.agentTypes', { industry: args.industry }),
    voices: (_s, _a, ctx) => run(ctx, 'discovery.voices', {}),
    languages: (_s, _a, ctx) => run(ctx, 'discovery.languages', {}),
    aiModels: (_s, _a, ctx) => run(ctx, 'discovery.aiModels', {}),
    me: (_s, _a, ctx) => run(ctx, 'me', {}),
    agents: (_s, args, ctx) => run(ctx, 'agents.list', pageArgs(args)),
    agent: (_s, { id }, ctx) => run(ctx, 'agents.get', { id }),
    agentPrompt: (_s, { id }, ctx) => run(ctx, 'agents.prompt', { id }),
    calls: (_s, args, ctx) =>
      run(ctx, 'calls.list', {
        ...pageArgs(args),
        ...present({ status: args.status, agent_id: args.agentId, campaign_id: args.campaignId }),
        ...present({ from: args.from, to: args.to }),
      }),
    call: (_s, { id }, ctx) => run(ctx, 'calls.get', { id }),
    campaigns: (_s, args, ctx) =>
      run(ctx, 'campaigns.list', { ...pageArgs(args), ...present({ status: args.status }) }),
    campaign: (_s, { id }, ctx) => run(ctx, 'campaigns.get', { id }),
  } satisfies Record<string, Resolver>,

  Mutation: {
    createAgent: (_s, { input }, ctx) => run(ctx, 'agents.create', snakeKeys(input, ['webhookConfig'])),
    updateAgent: (_s, { id, input }, ctx) =>
      run(ctx, 'agents.update', { ...snakeKeys(input, ['webhookConfig']), id }),
    deleteAgent: async (_s, { id }, ctx) => (await run(ctx, 'agents.delete', { id })).deleted,
    saveAgentInstructions: (_s, { id, instructions }, ctx) =>
      run(ctx, 'agents.saveInstructions', { id, instructions }),
    savePromptVersion: (_s, { agentId, label }, ctx) =>
      run(ctx, 'agents.versions.save', present({ id: agentId, label })),
    restorePromptVersion: (_s, { agentId, versionId }, ctx) =>
      run(ctx, 'agents.versions.restore', { id: agentId, version_id: versionId }),
    deletePromptVersion: async (_s, { agentId, versionId }, ctx) =>
      (await run(ctx, 'agents.versions.delete', { id: agentId, version_id: versionId })).deleted,
    makeCall: (_s, { input, idempotencyKey }, ctx) =>
      run(ctx, 'calls.create', snakeKeys(input), idempotencyKey as string | null),
    createCampaign: (_s, { input, idempotencyKey }, ctx) =>
      run(
        ctx,
        'campaigns.create',
        present(snakeKeys(input, ['retryConfig'])),
        idempotencyKey as string | null,
      ),
    pauseCampaign: (_s, { id }, ctx) => run(ctx, 'campaigns.pause', { id }),
    resumeCampaign: (_s, { id }, ctx) => run(ctx, 'campaigns.resume', { id }),
    cancelCampaign: (_s, { id }, ctx) => run(ctx, 'campaigns.cancel', { id }),
    redeliverWebhook: (_s, { agentId, deliveryId }, ctx) =>
      run(ctx, 'webhooks.redeliver', { id: agentId, delivery_id: deliveryId }),
    redeliverFailedWebhooks: (_s, { agentId, input }, ctx) =>
      run(ctx, 'webhooks.redeliverFailed', { ...present(snakeKeys(input)), id: agentId }),
    sendWebhookTest: (_s, { agentId }, ctx) => run(ctx, 'webhooks.sendTest', { id: agentId }),
  } satisfies Record<string, Resolver>,

  Subscription: {
    callStatusChanged: {
      subscribe: (_s: unknown, args: Args, ctx: GraphQLContext) =>
        openLive(
          ctx.deps,
          LIVE_OPERATIONS['calls.onStatus'],
          present({ id: args.callId, agent_id: args.agentId, campaign_id: args.campaignId }),
          ctx.caller,
          ({ call }) => callPayload(call, ctx.deps.recordings),
        ),
    },
    campaignProgress: {
      subscribe: (_s: unknown, args: Args, ctx: GraphQLContext) =>
        openLive(
          ctx.deps,
          LIVE_OPERATIONS['campaigns.onProgress'],
          { id: args.campaignId },
          ctx.caller,
          ({ campaign }) => ({ campaignProgress: campaign }),
        ),
    },
  },

  Call: {
    agent: (call: Call, _a: Args, ctx: GraphQLContext) => ctx.agents.load(call.agent_id),
    agentName: (call: Call) => call.agent.name,
  },
  Campaign: {
    agent: (campaign: Campaign, _a: Args, ctx: GraphQLContext) => ctx.agents.load(campaign.agent_id),
    contacts: (campaign: Campaign, args: Args, ctx: GraphQLContext) =>
      run(ctx, 'campaigns.contacts', {
        id: campaign.id,
        ...pageArgs(args),
        ...present({ status: args.status }),
      }),
  },
  Agent: {
    promptVersions: (agent: { id: string }, args: Args, ctx: GraphQLContext) =>
      run(ctx, 'agents.versions.list', { id: agent.id, ...pageArgs(args) }),
    webhookDeliveries: (agent: { id: string }, args: Args, ctx: GraphQLContext) =>
      run(ctx, 'agents.webhookDeliveries', { id: agent.id, ...pageArgs(args) }),
    promptVersionStatus: (agent: { id: string }, _a: Args, ctx: GraphQLContext) =>
      run(ctx, 'agents.versions.status', { id: agent.id }),
  },
};
