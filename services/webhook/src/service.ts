import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';

/** The webhook service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createWebhookService(deps: ServiceDeps): ServiceHandle {
  return defineService({ name: 'webhook', subscriptions: [serveHealth(deps, 'webhook')] });
}
