import { type ServiceDeps, type ServiceHandle, serveHealth, unsubscribeAll } from '@voice/shared';
import { serveDiscovery } from './handlers/discovery';

/** The agent service: the catalogue (discovery) and, from issue 3, agents and their prompts. */
export function createAgentService(deps: ServiceDeps): ServiceHandle {
  const subscriptions = [serveHealth(deps, 'agent'), ...serveDiscovery(deps)];
  return {
    name: 'agent',
    start: async () => {},
    stop: () => unsubscribeAll(subscriptions),
  };
}
