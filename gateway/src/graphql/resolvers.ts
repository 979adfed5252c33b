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
import { OPERATIONS, type OperationName } from '../operations/catalogue';
import { type Args, defaultArgs, present } from '../operations/graphql-args';
import { LIVE_OPERATIONS, openLive } from '../operations/live';
import type { AnyOperation } from '../operations/operation';
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

type Resolver = (parent: unknown, args: Args, ctx: GraphQLContext) => unknown;
type FieldOwner = AnyOperation['graphql'] extends `${infer T}.${string}` ? T : never;

/**
 * The resolvers of the catalogue's fields (gateway/src/operations): each runs its operation with
 * the input its entry makes from the arguments (by default defaultArgs, with the resource of a
 * field of a resource as `id`),
 * an idempotency key when the field takes one, and answers what the entry makes of the result.
 */
function operationResolvers(): Record<FieldOwner, Record<string, Resolver>> {
  const byType: Record<FieldOwner, Record<string, Resolver>> = {
    Query: {},
    Mutation: {},
    Agent: {},
    Campaign: {},
  };
  for (const op of Object.values(OPERATIONS) as AnyOperation[]) {
    const [type, field] = op.graphql.split('.') as [FieldOwner, string];
    const onResource = type !== 'Query' && type !== 'Mutation';
    const toInput = op.graphqlArgs ?? defaultArgs(op.graphqlField.idArg, onResource);
    const toResult = op.graphqlResult as ((answer: unknown) => unknown) | undefined;
    byType[type][field] = async (parent, args, ctx) => {
      const { idempotencyKey, ...rest } = args;
      const answer = await run(
        ctx,
        op.name as OperationName,
        toInput(rest, parent as { id: string }),
        idempotencyKey as string | null | undefined,
      );
      return toResult ? toResult(answer) : answer;
    };
  }
  return byType;
}

const generated = operationResolvers();

/** The GraphQL enum UPPER_CASE names over the values the records carry (`agents:read` is AGENTS_READ). */
const enumOf = (values: readonly string[]) =>
  Object.fromEntries(values.map((v) => [v.toUpperCase().replace(/[^A-Z0-9_]/g, '_'), v]));

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

  Query: generated.Query,
  Mutation: generated.Mutation,

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
    ...generated.Campaign,
    agent: (campaign: Campaign, _a: Args, ctx: GraphQLContext) => ctx.agents.load(campaign.agent_id),
  },
  Agent: generated.Agent,
};
