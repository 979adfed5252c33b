import { type ServiceDeps, type Subscription, serveRpc, WEBHOOK_ENDPOINT } from '@voice/shared';
import type { Endpoints } from '../app/endpoints';

/** Account webhook endpoints over the bus: decode, run the use case for the caller's account, encode. */
export function serveEndpoints(deps: ServiceDeps, endpoints: Endpoints): Subscription[] {
  const options = { queue: 'webhook', log: deps.log };
  const E = WEBHOOK_ENDPOINT;
  return [
    serveRpc(deps.bus, E.create, (body, ctx) => endpoints.create(ctx, body), options),
    serveRpc(deps.bus, E.list, (page, ctx) => endpoints.list(ctx, page), options),
    serveRpc(deps.bus, E.get, ({ endpoint_id }, ctx) => endpoints.get(ctx, endpoint_id), options),
    serveRpc(
      deps.bus,
      E.update,
      ({ endpoint_id, changes }, ctx) => endpoints.update(ctx, endpoint_id, changes),
      options,
    ),
    serveRpc(deps.bus, E.delete, ({ endpoint_id }, ctx) => endpoints.delete(ctx, endpoint_id), options),
    serveRpc(
      deps.bus,
      E.rotateSecret,
      ({ endpoint_id }, ctx) => endpoints.rotateSecret(ctx, endpoint_id),
      options,
    ),
    serveRpc(
      deps.bus,
      E.listDeliveries,
      ({ endpoint_id, ...page }, ctx) => endpoints.listDeliveries(ctx, endpoint_id, page),
      options,
    ),
    serveRpc(
      deps.bus,
      E.redeliver,
      ({ endpoint_id, delivery_id }, ctx) => endpoints.redeliver(ctx, endpoint_id, delivery_id),
      options,
    ),
    serveRpc(
      deps.bus,
      E.redeliverFailed,
      ({ endpoint_id, from, to, limit }, ctx) =>
        endpoints.redeliverFailed(ctx, endpoint_id, { from, to, limit }),
      options,
    ),
    serveRpc(
      deps.bus,
      E.sendTest,
      ({ endpoint_id, event }, ctx) => endpoints.sendTest(ctx, endpoint_id, event),
      options,
    ),
  ];
}
