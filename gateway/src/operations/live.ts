import { type Scope, Uuid } from '@voice/shared';
import { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { LiveEvents, LiveKind } from '../live/event-hub';
import { liveStream } from '../live/live-stream';
import { OPERATIONS } from './catalogue';
import {
  type AnyOperation,
  authorize,
  type Caller,
  type GraphQLFieldSpec,
  invoke,
  parseInput,
} from './operation';

/**
 * A live subscription of the public API, as GraphQL and tRPC both serve it: its name (its tRPC
 * path), its GraphQL field, the scope it takes, the events it follows, the input that narrows
 * them and the read that proves a resource it names is the caller's.
 */
export interface LiveOperation<K extends LiveKind = LiveKind, I extends z.ZodType = z.ZodType> {
  name: string;
  graphql: `Subscription.${string}`;
  /** That field's declaration, from which the schema's field is made (see Operation). */
  graphqlField: GraphQLFieldSpec;
  scope: Scope;
  kind: K;
  input: I;
  /** What each event answers: the resource as its read answers it. */
  reply: z.ZodType;
  /** Which of the account's events the subscriber gets. */
  filter: (input: z.output<I>) => (event: LiveEvents[K]) => boolean;
  /** The read run once listening: its failure (NOT_FOUND for another account's resource) is the answer. */
  check?: (input: z.output<I>) => { operation: AnyOperation; input: unknown } | undefined;
}

export const CallStatusFilter = z.object({
  id: Uuid.optional().describe('Only this call'),
  agent_id: Uuid.optional().describe('Only calls of this agent'),
  campaign_id: Uuid.optional().describe('Only calls of this campaign'),
});
export const CampaignProgressFilter = z.object({ id: Uuid.describe('The campaign to follow') });

const liveOperation = <K extends LiveKind, I extends z.ZodType>(op: LiveOperation<K, I>) => op;

/** Every live subscription, keyed by its tRPC path. */
export const LIVE_OPERATIONS = {
  'calls.onStatus': liveOperation({
    name: 'calls.onStatus',
    graphql: 'Subscription.callStatusChanged',
    graphqlField: {
      type: 'Call!',
      description:
        "The call after each of its transitions, in order: one call, one agent's, one campaign's, or the account's.",
      idArg: 'callId',
    },
    scope: 'calls:read',
    kind: 'callStatus',
    input: CallStatusFilter,
    reply: OPERATIONS['calls.get'].reply,
    filter:
      ({ id, agent_id, campaign_id }) =>
      ({ call }) =>
        (!id || call.id === id) &&
        (!agent_id || call.agent_id === agent_id) &&
        (!campaign_id || call.campaign_id === campaign_id),
    check: ({ id }) => (id ? { operation: OPERATIONS['calls.get'], input: { id } } : undefined),
  }),
  'campaigns.onProgress': liveOperation({
    name: 'campaigns.onProgress',
    graphql: 'Subscription.campaignProgress',
    graphqlField: {
      type: 'Campaign!',
      description: 'The campaign on every change of its status or counts.',
      idArg: 'campaignId',
    },
    scope: 'campaigns:read',
    kind: 'campaignProgress',
    input: CampaignProgressFilter,
    reply: OPERATIONS['campaigns.get'].reply,
    filter:
      ({ id }) =>
      ({ campaign }) =>
        campaign.id === id,
    check: ({ id }) => ({ operation: OPERATIONS['campaigns.get'], input: { id } }),
  }),
};

/**
 * One subscriber's events of a live operation, each made into the surface's payload by `map`:
 * scope (401/403) and input (422) checked, listening from now on (before the stream is answered,
 * so nothing that happens once it started is missed), then the check read, whose failure closes
 * the stream and is the answer. It ends when `until` aborts.
 */
export async function openLive<K extends LiveKind, I extends z.ZodType, T>(
  deps: GatewayDeps,
  op: LiveOperation<K, I>,
  rawInput: unknown,
  caller: Caller,
  map: (event: LiveEvents[K]) => T,
  until?: AbortSignal,
): Promise<AsyncIterableIterator<T>> {
  const principal = authorize(op, caller);
  if (!principal) throw new Error('a scoped live operation authorized no principal');
  const input = parseInput(op.input, rawInput);
  const stream = liveStream(deps.live, op.kind, principal.accountId, op.filter(input), map, until);
  const check = op.check?.(input);
  if (check) {
    try {
      await invoke(deps, check.operation, check.input, caller);
    } catch (error) {
      await stream.return?.();
      throw error;
    }
  }
  return stream;
}
