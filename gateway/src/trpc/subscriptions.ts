import { tracked } from '@trpc/server';
import { AppError, type Principal, parseOrThrow, Uuid } from '@voice/shared';
import { z } from 'zod';
import { revokedKeyError } from '../auth/key-sessions';
import type { LiveEvents, LiveKind } from '../live/event-hub';
import { liveStream } from '../live/live-stream';
import { OPERATIONS } from '../operations/catalogue';
import { authorize, invoke } from '../operations/operation';
import { withRecordingUrl } from '../recordings/links';
import type { TrpcContext } from './context';
import { type Optional, surfaceProcedure, typed } from './init';

export const CallStatusFilter = z.object({
  id: Uuid.optional(),
  agent_id: Uuid.optional(),
  campaign_id: Uuid.optional(),
});
export const CampaignProgressFilter = z.object({ id: Uuid });

/** The caller, holding `scope`, or the 401/403 they get. */
function callerOf(ctx: TrpcContext, scope: 'calls:read' | 'campaigns:read'): Principal {
  const principal = authorize({ scope }, ctx.caller);
  if (!principal) throw new Error('a scoped operation authorized no principal');
  return principal;
}

/**
 * One subscriber's live events, listening from now on (before the stream is answered, so nothing
 * that happens once the subscription has started is missed). It ends when the client leaves; when
 * the gateway closes it ends with SHUTTING_DOWN, which tRPC clients answer by reconnecting; when
 * its key is revoked (heard from PostgreSQL on every instance, or found on reading the key again)
 * it ends with UNAUTHORIZED, which they do not. `check` (reading the subscribed resource) runs
 * once listening: its failure is the answer.
 */
async function live<K extends LiveKind, T>(
  ctx: TrpcContext,
  spec: {
    kind: K;
    principal: Principal;
    filter: (event: LiveEvents[K]) => boolean;
    map: (event: LiveEvents[K]) => T;
    signal: AbortSignal | undefined;
    check?: () => Promise<unknown>;
  },
): Promise<AsyncGenerator<T>> {
  const revoked = new AbortController();
  // Watched before anything is read, and the key read again (the edge's read may predate a
  // revocation already heard here).
  const session = ctx.deps.sessions.open(spec.principal.keyId, () => revoked.abort());
  const until = AbortSignal.any([ctx.closing, revoked.signal, ...(spec.signal ? [spec.signal] : [])]);
  // Also when the stream is dropped before it was ever read.
  until.addEventListener('abort', () => session.close(), { once: true });
  const { accountId } = spec.principal;
  const stream = liveStream(ctx.deps.live, spec.kind, accountId, spec.filter, spec.map, until);
  try {
    await spec.check?.();
  } catch (error) {
    session.close();
    await stream.return?.();
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

/**
 * Call records after each status transition, in order per call: the caller's account only, narrowed
 * by call, agent or campaign. Event ids (`<call>:<sequence>`) are tRPC tracked ids.
 */
export const onStatus = surfaceProcedure
  .input(typed<Optional<z.input<typeof CallStatusFilter>>>())
  .subscription(async ({ ctx, input, signal }) => {
    const principal = callerOf(ctx, 'calls:read');
    const filter = parseOrThrow(CallStatusFilter, input ?? {}, 'input');
    const { id } = filter;
    return live(ctx, {
      kind: 'callStatus',
      principal,
      filter: ({ call }) =>
        (!id || call.id === id) &&
        (!filter.agent_id || call.agent_id === filter.agent_id) &&
        (!filter.campaign_id || call.campaign_id === filter.campaign_id),
      map: ({ entityId, sequence, call }) =>
        tracked(`${entityId}:${sequence}`, withRecordingUrl(call, ctx.deps.recordings)),
      signal,
      // Naming another account's call is a NOT_FOUND, as reading it is.
      ...(id ? { check: () => invoke(ctx.deps, OPERATIONS['calls.get'], { id }, ctx.caller) } : {}),
    });
  });

/** The campaign on every change of its status or counts; another account's campaign is a NOT_FOUND. */
export const onProgress = surfaceProcedure
  .input(typed<z.input<typeof CampaignProgressFilter>>())
  .subscription(async ({ ctx, input, signal }) => {
    const principal = callerOf(ctx, 'campaigns:read');
    const { id } = parseOrThrow(CampaignProgressFilter, input, 'input');
    return live(ctx, {
      kind: 'campaignProgress',
      principal,
      filter: ({ campaign }) => campaign.id === id,
      map: ({ entityId, sequence, campaign }) => tracked(`${entityId}:${sequence}`, campaign),
      signal,
      check: () => invoke(ctx.deps, OPERATIONS['campaigns.get'], { id }, ctx.caller),
    });
  });
