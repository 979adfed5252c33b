import { requireAccount, type ServiceDeps, type Subscription, serveRpc, TELEPHONY } from '@voice/shared';
import { type Dialer, instanceHangup } from '../app/dialer';

/** Dialing and hanging up over the bus: decode, run the use case for the caller's account, encode. */
export function serveCalls(deps: ServiceDeps, dialer: Dialer): Subscription[] {
  const shared = { queue: 'telephony', log: deps.log };
  return [
    serveRpc(deps.bus, TELEPHONY.dial, (request, ctx) => dialer.dial(requireAccount(ctx), request), shared),
    serveRpc(
      deps.bus,
      TELEPHONY.hangup,
      ({ call_id }, ctx) => dialer.hangup(requireAccount(ctx), call_id, ctx),
      shared,
    ),
    // This instance's own subject: hang-ups forwarded by a replica to the owner of the call.
    serveRpc(deps.bus, instanceHangup(dialer.instance), async ({ call_id }) => dialer.hangupHere(call_id), {
      queue: dialer.instance,
      log: deps.log,
    }),
  ];
}
