import { type ServiceDeps, type ServiceHandle, serveHealth, unsubscribeAll } from '@voice/shared';

/** The call service. Issue 2 gives it its schema, its place on the bus and its health answer. */
export function createCallService(deps: ServiceDeps): ServiceHandle {
  const subscriptions = [serveHealth(deps, 'call')];
  return {
    name: 'call',
    start: async () => {},
    stop: () => unsubscribeAll(subscriptions),
  };
}
