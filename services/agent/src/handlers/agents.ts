import {
  AGENT,
  NOTICES,
  noticeSubject,
  type RpcContext,
  requireAccount,
  type ServiceDeps,
  type Subscription,
  serveRpc,
  validatedReply,
} from '@voice/shared';
import { AgentReplies } from '../app/agent-replies';
import { agentSnapshot } from '../app/agent-snapshot';
import type { AgentsApp } from '../app/agents';
import type { PromptsApp } from '../app/prompt-versions';
import { webhookTarget } from '../app/webhook-target';
import { toAgent } from '../db/agent-rows';

/** Agent operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveAgents(deps: ServiceDeps, agents: AgentsApp, prompts: PromptsApp): Subscription[] {
  const options = { queue: 'agent', log: deps.log };
  const replies = new AgentReplies();
  const account = (ctx: RpcContext) => requireAccount(ctx);
  /**
   * Runs a change to an agent, then tells the services that keep copies of agents (the call
   * service's snapshots) before answering, so a call placed after this answer sees the change.
   * A notice that cannot be sent does not undo the committed change: the copies expire anyway.
   */
  const changing = async <T>(ctx: RpcContext, agentId: string, change: Promise<T>): Promise<T> => {
    const result = await change;
    const accountId = account(ctx);
    await deps.bus
      .publish(noticeSubject(NOTICES.agentChanged, accountId, agentId), { agent_id: agentId })
      .catch((error: unknown) =>
        deps.log.warn({ err: error, agent_id: agentId }, 'could not announce an agent change'),
      );
    return result;
  };
  return [
    serveRpc(deps.bus, AGENT.create, (body, ctx) => agents.create(account(ctx), body), options),
    serveRpc(deps.bus, AGENT.list, (page, ctx) => agents.list(account(ctx), page), options),
    serveRpc(
      deps.bus,
      AGENT.get,
      ({ agent_id }, ctx) =>
        replies.read(agent_id, {
          version: () => agents.getVersion(account(ctx), agent_id),
          row: () => agents.getRow(account(ctx), agent_id),
          encode: (row) => validatedReply(AGENT.get, toAgent(row)),
        }),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.getMany,
      ({ agent_ids }, ctx) => agents.getMany(account(ctx), agent_ids),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.update,
      ({ agent_id, changes }, ctx) => changing(ctx, agent_id, agents.update(account(ctx), agent_id, changes)),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.delete,
      ({ agent_id }, ctx) => changing(ctx, agent_id, agents.delete(account(ctx), agent_id)),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.snapshot,
      ({ agent_id }, ctx) => agentSnapshot(agents, account(ctx), agent_id),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.webhookTarget,
      ({ agent_id }, ctx) => webhookTarget(agents, account(ctx), agent_id),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.getPrompt,
      ({ agent_id }, ctx) => prompts.getPrompt(account(ctx), agent_id),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.saveInstructions,
      ({ agent_id, instructions }, ctx) =>
        changing(ctx, agent_id, prompts.saveInstructions(account(ctx), agent_id, instructions)),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.listPromptVersions,
      ({ agent_id, page, page_size }, ctx) => prompts.list(account(ctx), agent_id, { page, page_size }),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.savePromptVersion,
      ({ agent_id, label }, ctx) => changing(ctx, agent_id, prompts.save(account(ctx), agent_id, label)),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.promptVersionStatus,
      ({ agent_id }, ctx) => prompts.status(account(ctx), agent_id),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.restorePromptVersion,
      ({ agent_id, version_id }, ctx) =>
        changing(ctx, agent_id, prompts.restore(account(ctx), agent_id, version_id)),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.deletePromptVersion,
      ({ agent_id, version_id }, ctx) =>
        changing(ctx, agent_id, prompts.delete(account(ctx), agent_id, version_id)),
      options,
    ),
    // Not account-scoped: it reads no agent, only the catalogue and the address policy.
    serveRpc(deps.bus, AGENT.checkSettings, (request) => agents.checkSettings(request), options),
  ];
}
