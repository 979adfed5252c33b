import {
  AGENT,
  type RpcContext,
  requireAccount,
  type ServiceDeps,
  type Subscription,
  serveRpc,
} from '@voice/shared';
import { agentSnapshot } from '../app/agent-snapshot';
import type { AgentsApp } from '../app/agents';
import type { PromptsApp } from '../app/prompt-versions';
import { webhookTarget } from '../app/webhook-target';

/** Agent operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveAgents(deps: ServiceDeps, agents: AgentsApp, prompts: PromptsApp): Subscription[] {
  const options = { queue: 'agent', log: deps.log };
  const account = (ctx: RpcContext) => requireAccount(ctx);
  return [
    serveRpc(deps.bus, AGENT.create, (body, ctx) => agents.create(account(ctx), body), options),
    serveRpc(deps.bus, AGENT.list, (page, ctx) => agents.list(account(ctx), page), options),
    serveRpc(deps.bus, AGENT.get, ({ agent_id }, ctx) => agents.get(account(ctx), agent_id), options),
    serveRpc(
      deps.bus,
      AGENT.getMany,
      ({ agent_ids }, ctx) => agents.getMany(account(ctx), agent_ids),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.update,
      ({ agent_id, changes }, ctx) => agents.update(account(ctx), agent_id, changes),
      options,
    ),
    serveRpc(deps.bus, AGENT.delete, ({ agent_id }, ctx) => agents.delete(account(ctx), agent_id), options),
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
      ({ agent_id, instructions }, ctx) => prompts.saveInstructions(account(ctx), agent_id, instructions),
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
      ({ agent_id, label }, ctx) => prompts.save(account(ctx), agent_id, label),
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
      ({ agent_id, version_id }, ctx) => prompts.restore(account(ctx), agent_id, version_id),
      options,
    ),
    serveRpc(
      deps.bus,
      AGENT.deletePromptVersion,
      ({ agent_id, version_id }, ctx) => prompts.delete(account(ctx), agent_id, version_id),
      options,
    ),
    // Not account-scoped: it reads no agent, only the catalogue and the address policy.
    serveRpc(deps.bus, AGENT.checkSettings, (request) => agents.checkSettings(request), options),
  ];
}
