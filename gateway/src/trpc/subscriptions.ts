import { tracked } from '@trpc/server';
import { AppError } from '@voice/shared';
import type { z } from 'zod';
import { revokedKeyError } from '../auth/key-sessions';
import type { LiveEvents, LiveKind } from '../live/event-hub';
import { LIVE_OPERATIONS, type LiveOperation, openLive } from '../operations/live';
import { authorize } from '../operations/operation';
import { withRecordingUrl } from '../recordings/links';
import type { TrpcContext } from './context';
import { type Optional, surfaceProcedure, typed } from './init';

/**
 * One subscriber's live events, listening from now on (before the stream is answered, so nothing
 * that happens once the subscription has started is missed). It ends when the client leaves; when
 * the gateway closes it ends with SHUTTING_DOWN, which tRPC clients answer by reconnecting; when
 * its key is revoked (heard from PostgreSQL on every instance, or found on reading the key again)
 * it ends with UNAUTHORIZED, which they do not. `check` (reading the subscribed resource) runs
 * once listening: its failure is the answer.
 */
async function live<K extends LiveKind, I extends z.ZodType, T>(
  ctx: TrpcContext,
  op: LiveOperation<K, I>,
  input: unknown,
  map: (event: LiveEvents[K]) => T,
  signal: AbortSignal | undefined,
): Promise<AsyncGenerator<T>> {
  const principal = authorize(op, ctx.caller);
  if (!principal) throw new Error('a scoped operation authorized no principal');
  const revoked = new AbortController();
  // Watched before anything is read, and the key read again (the edge's read may predate a
  // revocation already heard here).
  const session = ctx.deps.sessions.open(principal.keyId, () => revoked.abort());
  const until = AbortSignal.any([ctx.closing, revoked.signal, ...(signal ? [signal] : [])]);
  // Also when the stream is dropped before it was ever read.
  until.addEventListener('abort', () => session.close(), { once: true });
  let stream: AsyncIterableIterator<T>;
  try {
    stream = await openLive(ctx.deps, op, input, ctx.caller, map, until);
  } catch (error) {
    session.close();
    throw error;
  }
  const closing = ctx.closing;
  return (async function* () {
    try {
      yield* stream;
    } finally {
      session.close();
      await stream.return?.();
    }
    if (revoked.signal.aborted) throw revokedKeyError();
    if (closing.aborted) throw new AppError('SHUTTING_DOWN');
  })();
}

type Live = typeof LIVE_OPERATIONS;

/**
 * Call records after each status transition, in order per call: the caller's account only, narrowed
 * by call, agent or campaign. Event ids (`<call>:<sequence>`) are tRPC tracked ids.
 */
export const onStatus = surfaceProcedure
  .input(typed<Optional<z.input<Live['calls.onStatus']['input']>>>())
  .subscription(({ ctx, input, signal }) =>
    live(
      ctx,
      LIVE_OPERATIONS['calls.onStatus'],
      input,
      ({ entityId, sequence, call }) =>
        tracked(`${entityId}:${sequence}`, withRecordingUrl(call, ctx.deps.recordings)),
      signal,
    ),
  );

/** The campaign on every change of its status or counts; another account's campaign is a NOT_FOUND. */
export const onProgress = surfaceProcedure
  .input(typed<z.input<Live['campaigns.onProgress']['input']>>())
  .subscription(({ ctx, input, signal }) =>
    live(
      ctx,
      LIVE_OPERATIONS['campaigns.onProgress'],
      input,
      ({ entityId, sequence, campaign }) => tracked(`${entityId}:${sequence}`, campaign),
      signal,
    ),
  );
