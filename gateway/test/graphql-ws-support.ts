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
  return paramsSocket(baseUrl, { authorization: `Bearer ${key}` });
}

/** A graphql-ws client whose connection_init carries these parameters (keySocket's rules). */
export function paramsSocket(baseUrl: string, connectionParams: Record<string, unknown>): KeySocket {
  const codes: number[] = [];
  const ready = deferred();
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
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

export interface SocketResult {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** One query or mutation over a socket: its result, or the errors it failed with. */
export function runOnce(client: Client, query: string): Promise<SocketResult> {
  return new Promise((resolve) => {
    let result: SocketResult = {};
    client.subscribe(
      { query },
      {
        next: (value) => {
          result = value as SocketResult;
        },
        error: (errors) => resolve({ errors: errors as SocketResult['errors'] }),
        complete: () => resolve(result),
      },
    );
  });
}
