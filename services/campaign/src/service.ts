import { type ServiceDeps, type ServiceHandle, serveHealth, unsubscribeAll } from '@voice/shared';

/** The campaign service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createCampaignService(deps: ServiceDeps): ServiceHandle {
  const subscriptions = [serveHealth(deps, 'campaign')];
  return {
    name: 'campaign',
    start: async () => {},
    stop: () => unsubscribeAll(subscriptions),
  };
}
