import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/** A promise and the function that settles it. */
export function deferred<T = void>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

/** A graphql-ws client of one API key, as an application keeps one. */
export interface KeySocket {
  client: Client;
  /** Every close code the client saw, in order. */
  codes: number[];
  /** Acknowledged by the server, or closed first (see `codes`). */
  ready: Promise<void>;
}

/** Connects at once and never retries, so every close the server chose stays visible. */
export function keySocket(baseUrl: string, key: string): KeySocket {
  const codes: number[] = [];
  const ready = deferred();
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: {
      connected: () => ready.settle(),
      closed: (event) => {
        codes.push((event as { code: number }).code);
        ready.settle();
      },
    },
  });
  return { client, codes, ready: ready.promise };
}
