import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLError,
} from 'graphql';
import type { GraphQLContext } from './context';

type Result = ExecutionResult | Promise<ExecutionResult>;

/**
 * What graphql's `subscribe` does (the resolver's source stream, each event executed against the
 * operation), except that an event is executed once per distinct operation of one API key: the
 * subscribers of an account that run the same subscription with the same variables under the same
 * key (a dashboard open in many tabs, a fleet of workers) share the result instead of executing it,
 * and building its links, once each. Only the same key shares, so scopes and tenancy are exactly
 * those of each subscriber; the events themselves are the hub's, one object per event for every
 * subscriber (see the resolvers' payload cache).
 */
export function sharedSubscribe(): (
  args: ExecutionArgs,
) => Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const results = new WeakMap<object, Map<string, Result>>();
  return async (args) => {
    const source = await createSourceEventStream(args);
    if (!isAsyncIterable(source)) return source as ExecutionResult;
    const caller = (args.contextValue as GraphQLContext | undefined)?.caller;
    const keyId = caller?.principal?.keyId;
    const operation = args.document.loc?.source.body;
    const key =
      keyId && operation !== undefined
        ? `${keyId}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${operation}`
        : undefined;
    const run = (payload: unknown): Result => {
      if (key === undefined || typeof payload !== 'object' || payload === null)
        return execute({ ...args, rootValue: payload });
      let byOperation = results.get(payload);
      if (!byOperation) {
        byOperation = new Map();
        results.set(payload, byOperation);
      }
      let result = byOperation.get(key);
      if (!result) {
        result = execute({ ...args, rootValue: payload });
        byOperation.set(key, result);
      }
      return result;
    };
    return mapped(source, run);
  };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function';
}

/** Maps an async iterator; `return` reaches the source at once, even while it waits for an event. */
function mapped(
  source: AsyncIterable<unknown>,
  map: (value: unknown) => Result,
): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  const done = (): IteratorResult<ExecutionResult> => ({ value: undefined, done: true });
  const self: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const step = await iterator.next();
      return step.done ? done() : { value: await map(step.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return done();
    },
    async throw(error?: GraphQLError) {
      if (iterator.throw) {
        const step = await iterator.throw(error);
        if (!step.done) return { value: await map(step.value), done: false };
        return done();
      }
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return self;
    },
  };
  return self;
}
