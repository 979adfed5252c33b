import {
  CALL,
  DO_NOT_CALL,
  encodeExportChunk,
  requireAccount,
  type ServiceDeps,
  type Subscription,
  serveRpc,
} from '@voice/shared';
import type { AccountLimitsApp } from '../app/account-limits';
import type { CallExport } from '../app/call-export';
import type { CallsApp } from '../app/calls';
import type { DoNotCallApp } from '../app/do-not-call';
import type { RecordingsApp } from '../app/recordings';

/** Call operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveCalls(
  deps: ServiceDeps,
  calls: CallsApp,
  exports: CallExport,
  recordings: RecordingsApp,
  doNotCall: DoNotCallApp,
  limits: AccountLimitsApp,
): Subscription[] {
  const options = { queue: 'call', log: deps.log };
  return [
    serveRpc(deps.bus, CALL.create, (body, ctx) => calls.place(ctx, body), options),
    serveRpc(deps.bus, CALL.get, ({ call_id }, ctx) => calls.get(requireAccount(ctx), call_id), options),
    serveRpc(
      deps.bus,
      CALL.list,
      ({ page, page_size, cursor, ...filters }, ctx) =>
        calls.list(requireAccount(ctx), filters, { page, page_size, cursor }),
      options,
    ),
    serveRpc(
      deps.bus,
      CALL.exportChunk,
      async (request, ctx) => encodeExportChunk(await exports.chunk(requireAccount(ctx), request)),
      options,
    ),
    serveRpc(deps.bus, CALL.recordingInfo, ({ call_id }) => recordings.info(call_id), options),
    serveRpc(
      deps.bus,
      CALL.recordingChunk,
      ({ call_id, offset, length }) => recordings.chunk(call_id, offset, length),
      options,
    ),
    serveRpc(deps.bus, DO_NOT_CALL.add, (body, ctx) => doNotCall.add(requireAccount(ctx), body), options),
    serveRpc(deps.bus, DO_NOT_CALL.list, (query, ctx) => doNotCall.list(requireAccount(ctx), query), options),
    serveRpc(
      deps.bus,
      DO_NOT_CALL.get,
      ({ number }, ctx) => doNotCall.get(requireAccount(ctx), number),
      options,
    ),
    serveRpc(
      deps.bus,
      DO_NOT_CALL.remove,
      ({ number }, ctx) => doNotCall.remove(requireAccount(ctx), number),
      options,
    ),
    serveRpc(
      deps.bus,
      DO_NOT_CALL.checkMany,
      ({ numbers }, ctx) => doNotCall.checkMany(requireAccount(ctx), numbers),
      options,
    ),
    serveRpc(
      deps.bus,
      CALL.agentCallStats,
      ({ agent_id }, ctx) => calls.agentCallStats(requireAccount(ctx), agent_id),
      options,
    ),
    // Internal and unscoped, like the recording subjects: only the gateway's admin routes send it.
    serveRpc(deps.bus, CALL.setAccountLimit, (request) => limits.set(request), options),
    serveRpc(deps.bus, CALL.accountLoad, (_request, ctx) => limits.load(requireAccount(ctx)), options),
  ];
}
