import { type Client, createClient } from 'graphql-ws';
import { authRefused } from './api';
import { storedKey } from './key';

/** The close code the gateway uses for a refused or revoked key (gateway/src/graphql/socket-auth.ts). */
const REFUSED = new Set([4401, 4403]);

let client: Client | undefined;

/** One graphql-ws connection for the whole app, opened lazily with the signed-in key. */
export function liveClient(): Client {
  if (client) return client;
  const url = new URL('/graphql', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  client = createClient({
    url: url.href,
    connectionParams: () => ({ Authorization: `Bearer ${storedKey()}` }),
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: (event) => !(event instanceof CloseEvent && REFUSED.has(event.code)),
    on: {
      closed: (event) => {
        if (event instanceof CloseEvent && REFUSED.has(event.code)) {
          authRefused(event.reason || 'The API key was refused');
        }
      },
    },
  });
  return client;
}

/** Closes the connection (on sign-out: the next key opens a new one). */
export function closeLive(): void {
  void client?.dispose();
  client = undefined;
}

/** Runs a subscription; `next` gets each result's data. Returns the function that stops it. */
export function subscribe<T>(
  query: string,
  variables: Record<string, unknown>,
  next: (data: T) => void,
  error: (message: string) => void,
): () => void {
  return liveClient().subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors?.length) error(result.errors[0]?.message ?? 'Subscription error');
        else if (result.data) next(result.data);
      },
      error: (cause) => error(cause instanceof Error ? cause.message : 'The live connection failed'),
      complete: () => {},
    },
  );
}
