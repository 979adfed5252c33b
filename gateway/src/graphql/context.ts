import { AGENT, AGENT_BATCH_MAX, type Agent } from '@voice/shared';
import DataLoader from 'dataloader';
import type { FastifyBaseLogger } from 'fastify';
import type { GatewayDeps } from '../deps';
import { OPERATIONS } from '../operations/catalogue';
import { authorize, type Caller, invoke, type Operation } from '../operations/operation';

/** What every resolver gets: the gateway's deps, who is asking, and per-request batch loaders. */
export interface GraphQLContext {
  deps: GatewayDeps;
  caller: Caller;
  log: FastifyBaseLogger;
  /** Agents by id, fetched in one bus request per batch (Call.agent, Campaign.agent): no N+1. */
  agents: DataLoader<string, Agent | null>;
}

export function buildContext(deps: GatewayDeps, caller: Caller, log: FastifyBaseLogger): GraphQLContext {
  const agents = new DataLoader<string, Agent | null>(
    async (ids) => {
      const principal = authorize({ scope: 'agents:read' }, caller);
      const found = await deps.client.call(
        AGENT.getMany,
        { agent_ids: [...ids] },
        { ...caller.context, accountId: principal?.accountId },
      );
      const byId = new Map(found.map((agent) => [agent.id, agent]));
      return ids.map((id) => byId.get(id) ?? null);
    },
    { maxBatchSize: AGENT_BATCH_MAX },
  );
  return { deps, caller, log, agents };
}

type Operations = typeof OPERATIONS;
type OutputOf<N extends keyof Operations> = Operations[N] extends Operation<infer _I, infer O> ? O : never;

/** Runs one operation of the catalogue for this request's caller. */
export function run<N extends keyof Operations>(
  ctx: GraphQLContext,
  name: N,
  input: unknown,
  idempotencyKey?: string | null,
): Promise<OutputOf<N>> {
  const caller = idempotencyKey ? { ...ctx.caller, idempotencyKey } : ctx.caller;
  return invoke(ctx.deps, OPERATIONS[name] as Operation, input, caller) as Promise<OutputOf<N>>;
}
