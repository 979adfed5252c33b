import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';
import { serveDiscovery } from './handlers/discovery';

/** The agent service: the catalogue (discovery) and, from issue 3, agents and their prompts. */
export function createAgentService(deps: ServiceDeps): ServiceHandle {
  return defineService({
    name: 'agent',
    subscriptions: [serveHealth(deps, 'agent'), ...serveDiscovery(deps)],
  });
}
