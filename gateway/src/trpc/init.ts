import { initTRPC } from '@trpc/server';
import type { z } from 'zod';
import { OPERATIONS, type OperationName } from '../operations/catalogue';
import { invoke, type Operation } from '../operations/operation';
import type { TrpcContext } from './context';
import { formatError } from './errors';

/** Server-sent pings keep idle subscriptions (and the proxies in between) alive. */
const PING_MS = 10_000;

const t = initTRPC.context<TrpcContext>().create({
  // No transformer: plain JSON in REST's shapes, so any HTTP client can call the API.
  isDev: false,
  errorFormatter: ({ shape, error, ctx }) => formatError(shape, error, ctx?.requestId),
  sse: {
    ping: { enabled: true, intervalMs: PING_MS },
    client: { reconnectAfterInactivityMs: PING_MS * 2 },
  },
});

export const router = t.router;

/** Every procedure: the edge's refusal (bad key, spent budget) comes first. */
export const surfaceProcedure = t.procedure.use(({ ctx, next }) => {
  if (ctx.refusal) throw ctx.refusal;
  return next();
});

type Operations = typeof OPERATIONS;
type InputOf<N extends OperationName> = z.input<Operations[N]['input']>;
type OutputOf<N extends OperationName> = Operations[N] extends Operation<infer _I, infer O> ? O : never;
/** An input whose fields are all optional may be left out. */
export type Optional<T> = Record<never, never> extends T ? T | undefined : T;

/**
 * Types a procedure's input without checking it: the operation validates it (so its 422 issues,
 * mapped to BAD_REQUEST, are the same on every surface), and the client gets the input type.
 */
export const typed =
  <T>() =>
  (value: unknown): T =>
    value as T;

function run<N extends OperationName>(ctx: TrpcContext, name: N, input: unknown): Promise<OutputOf<N>> {
  return invoke(ctx.deps, OPERATIONS[name] as Operation, input, ctx.caller) as Promise<OutputOf<N>>;
}

/** A read of the operation catalogue, as a query. */
export const query = <N extends OperationName>(name: N) =>
  surfaceProcedure.input(typed<Optional<InputOf<N>>>()).query(({ ctx, input }) => run(ctx, name, input));

/** A write of the operation catalogue, as a mutation. */
export const mutation = <N extends OperationName>(name: N) =>
  surfaceProcedure.input(typed<Optional<InputOf<N>>>()).mutation(({ ctx, input }) => run(ctx, name, input));
