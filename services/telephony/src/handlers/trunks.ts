import {
  type RpcContext,
  requireAccount,
  type ServiceDeps,
  type Subscription,
  serveRpc,
  TELEPHONY,
} from '@voice/shared';
import type { TrunkRouter } from '../app/router';
import type { TrunksApp } from '../app/trunks';
import { toSipTrunk } from '../db/trunk-rows';

/** Trunks and routing over the bus: decode, run the use case for the caller's account, encode. */
export function serveTrunks(deps: ServiceDeps, trunks: TrunksApp, router: TrunkRouter): Subscription[] {
  const options = { queue: 'telephony', log: deps.log };
  const account = (ctx: RpcContext) => requireAccount(ctx);
  return [
    serveRpc(deps.bus, TELEPHONY.createTrunk, (body, ctx) => trunks.create(account(ctx), body), options),
    serveRpc(
      deps.bus,
      TELEPHONY.getTrunk,
      ({ trunk_id }, ctx) => trunks.get(account(ctx), trunk_id),
      options,
    ),
    serveRpc(deps.bus, TELEPHONY.listTrunks, (page, ctx) => trunks.list(account(ctx), page), options),
    serveRpc(
      deps.bus,
      TELEPHONY.updateTrunk,
      ({ trunk_id, changes }, ctx) => trunks.update(account(ctx), trunk_id, changes),
      options,
    ),
    serveRpc(
      deps.bus,
      TELEPHONY.deleteTrunk,
      ({ trunk_id }, ctx) => trunks.delete(account(ctx), trunk_id),
      options,
    ),
    serveRpc(
      deps.bus,
      TELEPHONY.route,
      async ({ source_number }, ctx) => {
        const decision = await router.route(account(ctx), source_number);
        return decision.carrier === 'sip'
          ? { carrier: 'sip' as const, matched: decision.matched, trunk: toSipTrunk(decision.trunk) }
          : decision;
      },
      options,
    ),
  ];
}
