import {
  AGENT,
  NOTICES,
  noticeSubject,
  rpcServer,
  type ServiceDeps,
  type Subscription,
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
  const rpc = rpcServer(deps.bus, { queue: 'agent', log: deps.log });
  const replies = new AgentReplies();
  /**
   * Runs a change to an agent, then tells the services that keep copies of agents (the call
   * service's snapshots) before answering, so a call placed after this answer sees the change.
   * A notice that cannot be sent does not undo the committed change: the copies expire anyway.
   */
  const changing = async <T>(accountId: string, agentId: string, change: Promise<T>): Promise<T> => {
    const result = await change;
    await deps.bus
      .publish(noticeSubject(NOTICES.agentChanged, accountId, agentId), { agent_id: agentId })
      .catch((error: unknown) =>
        deps.log.warn({ err: error, agent_id: agentId }, 'could not announce an agent change'),
      );
    return result;
  };
  return [
    rpc.forAccount(AGENT.create, (body, accountId) => agents.create(accountId, body)),
    rpc.forAccount(AGENT.list, (page, accountId) => agents.list(accountId, page)),
    rpc.forAccount(AGENT.get, ({ agent_id }, accountId) =>
      replies.read(agent_id, {
        version: () => agents.getVersion(accountId, agent_id),
        row: () => agents.getRow(accountId, agent_id),
        encode: (row) => validatedReply(AGENT.get, toAgent(row)),
      }),
    ),
    rpc.forAccount(AGENT.getMany, ({ agent_ids }, accountId) => agents.getMany(accountId, agent_ids)),
    rpc.forAccount(AGENT.update, ({ agent_id, changes }, accountId) =>
      changing(accountId, agent_id, agents.update(accountId, agent_id, changes)),
    ),
    rpc.forAccount(AGENT.delete, ({ agent_id }, accountId) =>
      changing(accountId, agent_id, agents.delete(accountId, agent_id)),
    ),
    rpc.forAccount(AGENT.snapshot, ({ agent_id }, accountId) => agentSnapshot(agents, accountId, agent_id)),
    rpc.forAccount(AGENT.webhookTarget, ({ agent_id }, accountId) =>
      webhookTarget(agents, accountId, agent_id),
    ),
    rpc.forAccount(AGENT.getPrompt, ({ agent_id }, accountId) => prompts.getPrompt(accountId, agent_id)),
    rpc.forAccount(AGENT.saveInstructions, ({ agent_id, instructions }, accountId) =>
      changing(accountId, agent_id, prompts.saveInstructions(accountId, agent_id, instructions)),
    ),
    rpc.forAccount(AGENT.listPromptVersions, ({ agent_id, ...page }, accountId) =>
      prompts.list(accountId, agent_id, page),
    ),
    rpc.forAccount(AGENT.savePromptVersion, ({ agent_id, label }, accountId) =>
      changing(accountId, agent_id, prompts.save(accountId, agent_id, label)),
    ),
    rpc.forAccount(AGENT.promptVersionStatus, ({ agent_id }, accountId) =>
      prompts.status(accountId, agent_id),
    ),
    rpc.forAccount(AGENT.restorePromptVersion, ({ agent_id, version_id }, accountId) =>
      changing(accountId, agent_id, prompts.restore(accountId, agent_id, version_id)),
    ),
    rpc.forAccount(AGENT.deletePromptVersion, ({ agent_id, version_id }, accountId) =>
      changing(accountId, agent_id, prompts.delete(accountId, agent_id, version_id)),
    ),
    // Not account-scoped: it reads no agent, only the catalogue and the address policy.
    rpc.serve(AGENT.checkSettings, (request) => agents.checkSettings(request)),
  ];
}
