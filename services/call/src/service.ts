import { defineService, type ServiceDeps, type ServiceHandle, serveHealth } from '@voice/shared';

/** The call service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createCallService(deps: ServiceDeps): ServiceHandle {
  return defineService({ name: 'call', subscriptions: [serveHealth(deps, 'call')] });
}
