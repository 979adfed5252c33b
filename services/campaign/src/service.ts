import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';

/** The campaign service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createCampaignService(deps: ServiceDeps): ServiceHandle {
  return defineService({ name: 'campaign', subscriptions: [serveHealth(deps, 'campaign')] });
}
