import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  type TRPCClient,
  TRPCClientError,
} from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { EventSource, type FetchLike } from 'eventsource';
import type { AppRouter } from './router';

export type { AppRouter };
/** Every procedure's input, e.g. `Inputs['calls']['create']`. */
export type Inputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, e.g. `Outputs['agents']['get']`. */
export type Outputs = inferRouterOutputs<AppRouter>;
export type VoiceClient = TRPCClient<AppRouter>;
/** What a failed call rejects with: `error.data.code` (NOT_FOUND, ...), `httpStatus`, `issues`, `reason`. */
export type VoiceClientError = TRPCClientError<AppRouter>;

export interface VoiceClientOptions {
  /** Where the API is, e.g. http://127.0.0.1:3000 (the client adds /trpc). */
  url: string;
  /** An API key; without one only the public discovery procedures answer. */
  apiKey?: string | undefined;
  /** The fetch to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

/** The gateway's MAX_BATCH: the most procedures one batched request may carry. */
const MAX_BATCH = 20;

/**
 * A typed client of the Voice API's tRPC surface. Queries and mutations are batched over HTTP;
 * a mutation given an idempotency key (`idempotent(key)`) goes alone, with its Idempotency-Key
 * header; subscriptions run over Server-Sent Events. The key always travels in the Authorization
 * header, never in a URL.
 */
export function createVoiceClient(options: VoiceClientOptions): VoiceClient {
  const url = `${options.url.replace(/\/+$/, '')}/trpc`;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  // EventSource cannot send headers; the `eventsource` package takes a fetch that can.
  const sseFetch: FetchLike = (input, init) =>
    fetchImpl(input, { ...init, headers: { ...init.headers, ...auth } });
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url, EventSource, eventSourceOptions: { fetch: sseFetch } }),
        false: splitLink({
          condition: (op) => typeof op.context.idempotencyKey === 'string',
          true: httpLink({
            url,
            fetch: fetchImpl,
            headers: ({ op }) => ({ ...auth, 'idempotency-key': op.context.idempotencyKey as string }),
          }),
          false: httpBatchLink({ url, fetch: fetchImpl, headers: auth, maxItems: MAX_BATCH }),
        }),
      }),
    ],
  });
}

/**
 * Options that send an Idempotency-Key with a mutation (calls.create, campaigns.create): a retry
 * with the same key and input returns the first result instead of acting twice.
 * @example await client.calls.create.mutate(body, idempotent(crypto.randomUUID()))
 */
export function idempotent(key: string): { context: { idempotencyKey: string } } {
  return { context: { idempotencyKey: key } };
}

/** Whether an error came from the API (a TRPCClientError of this router). */
export function isVoiceError(error: unknown): error is VoiceClientError {
  return error instanceof TRPCClientError;
}
