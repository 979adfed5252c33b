import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';
import { AgentsApp } from './app/agents';
import { PromptsApp } from './app/prompt-versions';
import { serveAgents } from './handlers/agents';
import { serveDiscovery } from './handlers/discovery';

/** The agent service: the catalogue (discovery), agents, their prompts and prompt versions. */
export function createAgentService(deps: ServiceDeps): ServiceHandle {
  const agents = new AgentsApp({
    sql: deps.sql,
    allowPrivateWebhooks: deps.config.WEBHOOK_ALLOW_PRIVATE ?? false,
  });
  const prompts = new PromptsApp(agents);
  return defineService({
    name: 'agent',
    subscriptions: [
      serveHealth(deps, 'agent'),
      ...serveDiscovery(deps),
      ...serveAgents(deps, agents, prompts),
    ],
  });
}
