import { OPERATIONS, type OperationName } from '../operations/catalogue';
import { mutation, query, router } from './init';
import { onProgress, onStatus } from './subscriptions';

type Operations = typeof OPERATIONS;

/** A write is what GraphQL offers as a mutation; everything else is read. */
type KindOf<N extends OperationName> = Operations[N]['graphql'] extends `Mutation.${string}`
  ? 'mutation'
  : 'query';
type ProcedureOf<N extends OperationName> =
  KindOf<N> extends 'mutation' ? ReturnType<typeof mutation<N>> : ReturnType<typeof query<N>>;

/** Every procedure by its dotted path: the catalogue's operations and the live subscriptions. */
type Flat = { [N in OperationName]: ProcedureOf<N> } & {
  'calls.onStatus': typeof onStatus;
  'campaigns.onProgress': typeof onProgress;
};

type Head<K> = K extends `${infer H}.${string}` ? H : K;
type Rest<K, H extends string> = K extends `${H}.${infer R}` ? R : never;
/**
 * `{ 'agents.versions.list': P }` as `{ agents: { versions: { list: P } } }`. Mapped over unions of
 * names, never over `keyof` with `as`: such a type is printed as the object it is, which the
 * client's declaration build needs.
 */
type Nest<T> = Resolved<{
  [H in Head<keyof T & string>]: H extends keyof T ? T[H] : Nest<Sub<T, H>>;
}>;
/** The same object, as a plain object type rather than the mapped type that made it. */
type Resolved<T> = { [K in keyof T]: T[K] } & {};
type Sub<T, H extends string> = { [R in Rest<keyof T & string, H>]: T[`${H}.${R}` & keyof T] };

function nest(flat: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [path, procedure] of Object.entries(flat)) {
    const parts = path.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = procedure;
  }
  return root;
}

function procedures(): Flat {
  const flat: Record<string, unknown> = { 'calls.onStatus': onStatus, 'campaigns.onProgress': onProgress };
  for (const name of Object.keys(OPERATIONS) as OperationName[]) {
    flat[name] = OPERATIONS[name].graphql.startsWith('Mutation.') ? mutation(name) : query(name);
  }
  return flat as Flat;
}

/**
 * The tRPC API at /trpc, generated from the operation catalogue (gateway/src/operations): each
 * operation is the procedure at its dotted name (inputs in REST's snake_case shapes, one resource
 * named `id`; outputs REST's `data`), a mutation when it writes (GraphQL's Mutation), else a query;
 * plus the live subscriptions over SSE.
 */
export const appRouter = router(nest(procedures()) as Nest<Flat>);

export type AppRouter = typeof appRouter;
