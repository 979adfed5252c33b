import { type ServiceDeps, type Subscription, serveRpc, WEBHOOK } from '@voice/shared';
import type { DeliveryLog } from '../app/delivery-log';

/** The delivery log over the bus: decode, run the use case for the caller's account, encode. */
export function serveDeliveryLog(deps: ServiceDeps, log: DeliveryLog): Subscription[] {
  const options = { queue: 'webhook', log: deps.log };
  return [
    serveRpc(
      deps.bus,
      WEBHOOK.listDeliveries,
      ({ agent_id, ...page }, ctx) => log.list(ctx, agent_id, page),
      options,
    ),
    serveRpc(
      deps.bus,
      WEBHOOK.redeliver,
      ({ agent_id, delivery_id }, ctx) => log.redeliver(ctx, agent_id, delivery_id),
      options,
    ),
    serveRpc(
      deps.bus,
      WEBHOOK.redeliverFailed,
      ({ agent_id, from, to, limit }, ctx) => log.redeliverFailed(ctx, agent_id, { from, to, limit }),
      options,
    ),
    serveRpc(deps.bus, WEBHOOK.sendTest, ({ agent_id }, ctx) => log.sendTest(ctx, agent_id), options),
  ];
}
