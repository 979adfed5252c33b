import { type ServiceDeps, type ServiceHandle, serveHealth, unsubscribeAll } from '@voice/shared';

/** The webhook service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createWebhookService(deps: ServiceDeps): ServiceHandle {
  const subscriptions = [serveHealth(deps, 'webhook')];
  return {
    name: 'webhook',
    start: async () => {},
    stop: () => unsubscribeAll(subscriptions),
  };
}
