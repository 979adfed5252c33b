import type { FormattedExecutionResult } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { expect } from 'vitest';
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

/** What one operation over graphql-ws came to: its result, or the error its sink got (a close). */
export type Outcome = {
  result?: FormattedExecutionResult<Record<string, unknown>, unknown>;
  error?: unknown;
};

/** A subscription's events and how it ended (its sink's error: the socket's close). */
export interface Followed {
  events: unknown[];
  first: Promise<void>;
  ended: Promise<unknown>;
}

/** The result of a query or mutation, or how it failed. */
export function once(
  client: Client,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<Outcome> {
  return new Promise((resolve) => {
    let result: Outcome['result'];
    client.subscribe(
      { query, variables },
      {
        next: (value) => {
          result = value;
        },
        error: (error) => resolve({ error }),
        complete: () => resolve(result ? { result } : { error: 'completed without a result' }),
      },
    );
  });
}

/** Refused: an error instead of data (UNAUTHENTICATED on the socket, or the socket closed or refused). */
export function expectRefused(outcome: Outcome, what: string): void {
  expect(outcome.result?.data ?? null, what).toBeNull();
  if (outcome.result) expect(outcome.result.errors?.[0]?.extensions?.code, what).toBe('UNAUTHENTICATED');
  else expect(outcome.error, what).toBeDefined();
}

export function follow(client: Client, query: string): Followed {
  const events: unknown[] = [];
  const first = deferred();
  const ended = deferred<unknown>();
  client.subscribe(
    { query },
    {
      next: (value) => {
        events.push(value);
        first.settle();
      },
      error: (error) => ended.settle(error),
      complete: () => ended.settle('completed'),
    },
  );
  return { events, first: first.promise, ended: ended.promise };
}
