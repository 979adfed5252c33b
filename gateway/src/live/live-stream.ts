import { AppError } from '@voice/shared';
import type { EventHub, LiveEvents, LiveKind } from './event-hub';

/** Events a slow subscriber may fall behind by before its stream is ended (it can resubscribe). */
const MAX_BUFFERED = 1000;

/**
 * One subscriber's events as an async iterator: those of its account that pass `filter`, in
 * order (an event older than one already delivered for the same entity is dropped), mapped to
 * what the surface sends. Ending the iteration (client gone) removes the listener.
 */
export function liveStream<K extends LiveKind, T>(
  hub: EventHub,
  kind: K,
  accountId: string,
  filter: (event: LiveEvents[K]) => boolean,
  map: (event: LiveEvents[K]) => T,
  signal?: AbortSignal,
): AsyncIterableIterator<T> {
  const buffered: T[] = [];
  const lastSequence = new Map<string, number>();
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  let done = false;
  const stopListening = hub.listen(kind, accountId, (event) => {
    if (done || !filter(event)) return;
    if ((lastSequence.get(event.entityId) ?? -1) >= event.sequence) return;
    lastSequence.set(event.entityId, event.sequence);
    if (buffered.length >= MAX_BUFFERED) {
      failure = new AppError('SERVICE_UNAVAILABLE', 'The subscriber fell too far behind; subscribe again');
      finish();
    } else buffered.push(map(event));
    wake?.();
  });
  const finish = () => {
    done = true;
    stopListening();
    wake?.();
  };
  signal?.addEventListener('abort', finish, { once: true });

  const iterator: AsyncIterableIterator<T> = {
    async next() {
      for (;;) {
        if (buffered.length > 0) return { value: buffered.shift() as T, done: false };
        if (failure) throw failure;
        if (done) return { value: undefined, done: true };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    },
    async return() {
      finish();
      buffered.length = 0;
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
