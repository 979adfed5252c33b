import type { Call, Campaign } from '@voice/shared';
import { OPERATIONS, type OperationName } from '../operations/catalogue';
import { type Args, defaultArgs } from '../operations/graphql-args';
import { LIVE_OPERATIONS, openLive } from '../operations/live';
import type { AnyOperation } from '../operations/operation';
import { withRecordingUrl } from '../recordings/links';
import { type GraphQLContext, run } from './context';
import { ENUM_VALUES, enumValueName } from './enums';
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

/** A subscription's input from its arguments, as an operation's by default (see defaultArgs). */
const liveArgs = (name: keyof typeof LIVE_OPERATIONS, args: Args) =>
  defaultArgs(LIVE_OPERATIONS[name].graphqlField.idArg, false)(args);

/** The enums' GraphQL names over the values the records carry. */
const enums = Object.fromEntries(
  Object.entries(ENUM_VALUES).map(([name, values]) => [
    name,
    Object.fromEntries(values.map((value) => [enumValueName(value), value])),
  ]),
);

export const resolvers = {
  DateTime: DateTimeScalar,
  JSON: JsonScalar,
  ...enums,

  Query: generated.Query,
  Mutation: generated.Mutation,

  Subscription: {
    callStatusChanged: {
      subscribe: (_s: unknown, args: Args, ctx: GraphQLContext) =>
        openLive(
          ctx.deps,
          LIVE_OPERATIONS['calls.onStatus'],
          liveArgs('calls.onStatus', args),
          ctx.caller,
          ({ call }) => callPayload(call, ctx.deps.recordings),
        ),
    },
    campaignProgress: {
      subscribe: (_s: unknown, args: Args, ctx: GraphQLContext) =>
        openLive(
          ctx.deps,
          LIVE_OPERATIONS['campaigns.onProgress'],
          liveArgs('campaigns.onProgress', args),
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
