import { createVoiceClient } from '../../../client/src/index';
import { deferred } from './graphql-ws-support';

/** A tRPC SSE stream of the account's call transitions, as @voice/client opens it. */
export interface CallStream {
  events: unknown[];
  /** The server answered the stream: it listens. */
  started: Promise<void>;
  first: Promise<void>;
  /** How it ended: the client's error, or 'completed'. */
  ended: Promise<unknown>;
  stop(): void;
}

export function callStream(baseUrl: string, key: string): CallStream {
  const events: unknown[] = [];
  const [started, first] = [deferred(), deferred()];
  const ended = deferred<unknown>();
  const subscription = createVoiceClient({ url: baseUrl, apiKey: key }).calls.onStatus.subscribe(
    {},
    {
      onStarted: () => started.settle(),
      onData: (event) => {
        events.push(event);
        first.settle();
      },
      onError: (error) => ended.settle(error),
      onComplete: () => ended.settle('completed'),
    },
  );
  return {
    events,
    started: started.promise,
    first: first.promise,
    ended: ended.promise,
    stop: () => subscription.unsubscribe(),
  };
}
