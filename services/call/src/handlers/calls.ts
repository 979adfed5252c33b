import { CALL, requireAccount, type ServiceDeps, type Subscription, serveRpc } from '@voice/shared';
import type { CallExport } from '../app/call-export';
import type { CallsApp } from '../app/calls';
import type { RecordingsApp } from '../app/recordings';

/** Call operations over the bus: decode, call the use case for the caller's account, encode. */
export function serveCalls(
  deps: ServiceDeps,
  calls: CallsApp,
  exports: CallExport,
  recordings: RecordingsApp,
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
      (request, ctx) => exports.chunk(requireAccount(ctx), request),
      options,
    ),
    serveRpc(deps.bus, CALL.recordingInfo, ({ call_id }) => recordings.info(call_id), options),
    serveRpc(
      deps.bus,
      CALL.recordingChunk,
      ({ call_id, offset, length }) => recordings.chunk(call_id, offset, length),
      options,
    ),
  ];
}
