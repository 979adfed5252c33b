import {
  AppError,
  assertSafeInput,
  type CallContext,
  type Principal,
  type RpcContract,
  type Scope,
  toValidationIssues,
} from '@voice/shared';
import type { z } from 'zod';
import type { GatewayDeps } from '../deps';
import type { RestRoute } from '../http/rpc-route';
import { IDEMPOTENCY_KEY, idempotent, requestHash, type StoredResponse } from '../idempotency/idempotency';
import type { Args } from './graphql-args';

/**
 * Who may run an operation: a key holding the scope, any valid key whatever its scopes (`any-key`,
 * e.g. "who am I"), or anyone (null: public, like the REST discovery lists).
 */
export type Access = Scope | 'any-key' | null;

/** What an operation's run gets beyond its input: the request's context and who is asking. */
export type Run<I, O> = (
  deps: GatewayDeps,
  input: I,
  context: CallContext,
  principal: Principal | undefined,
) => Promise<O>;

/**
 * How an operation's GraphQL field is declared in the schema (graphql/operation-fields.ts makes
 * the field from it): its arguments are the operation's input, camelCased, with their types and
 * descriptions from its zod schema; the resource of a field on a resource (Agent.promptVersions)
 * is the parent, not an argument.
 */
export interface GraphQLFieldSpec {
  /** The type it answers, an existing type of the schema: `Agent!`, `AgentPage!`, `Boolean!`. */
  type: string;
  description: string;
  /** The argument the input's `id` is sent as, when not `id` (`agentId` on a part of an agent). */
  idArg?: string;
  /** The input's other fields, as one input object argument `input` of this type. */
  inputArg?: { type: string; description: string };
}

/**
 * One operation of the public API, as every surface runs it: who may run it, the input it takes
 * (the REST shapes, snake_case; one resource is named `id`), what it answers and what runs it:
 * almost always one bus call of a shared contract (rpcOperation); and how each surface offers it:
 * its REST route, its GraphQL field (tRPC's procedure is its name). Surfaces only translate their
 * arguments into this input and the AppError it may throw into their error format.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O = unknown> {
  name: string;
  /**
   * Its GraphQL field, `Type.field`: a root field (Query, Mutation) or a field of the resource it
   * reads from (Agent.promptVersions). The schema is held to the operation's reply by a test.
   */
  graphql: `${'Query' | 'Mutation' | 'Agent' | 'Campaign'}.${string}`;
  /** That field's declaration, from which the schema's field is made. */
  graphqlField: GraphQLFieldSpec;
  /** Its REST route: how it is read from HTTP, answered and documented. */
  rest: RestRoute;
  scope: Access;
  input: I;
  /** The schema of what run answers: REST's documented success reply. */
  reply: z.ZodType;
  run: Run<z.output<I>, O>;
  /** Honours an idempotency key, sharing REST's store and its 24-hour window. */
  idempotent?: boolean;
  /**
   * Its input from its GraphQL field's arguments and, for a field of a resource, that resource.
   * By default the arguments with a value, in snake_case, the resource's id as `id` (see
   * graphqlField.idArg; a field of a resource takes its parent's).
   */
  graphqlArgs?: (args: Args, parent: { id: string }) => unknown;
  /** What its GraphQL field answers, from the operation's answer (typed where it is declared); that answer when omitted. */
  graphqlResult?: (answer: never) => unknown;
  /**
   * For an operation whose answer is the service's reply as it came (one bus call, nothing
   * adjusted): run, answering that reply's JSON text unparsed, so REST sends it on as it came
   * instead of parsing it only to serialise it again.
   */
  runJson?: Run<z.output<I>, string | undefined>;
}

export type Unnamed<O extends Operation> = Omit<O, 'name'>;

/**
 * Any operation of the catalogue, whatever its input: its run takes `never`, as what it is handed is
 * the input its own schema (or the surface's) validated.
 */
export type AnyOperation = Omit<Operation, 'run' | 'runJson'> & {
  run: Run<never, unknown>;
  runJson?: Run<never, string | undefined> | undefined;
};

/** The catalogue with each operation named by its key (its tRPC path), so a name is written once. */
export function named<T extends Record<string, { scope: Access }>>(
  operations: T,
): { [K in keyof T]: T[K] & { name: K } } {
  return Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, { ...op, name }])) as {
    [K in keyof T]: T[K] & { name: K };
  };
}

/** An operation that is one bus call: the input mapped to the contract's request, the reply adjusted. */
export function rpcOperation<
  I extends z.ZodType,
  C extends RpcContract,
  G extends Operation['graphql'] = Operation['graphql'],
>(spec: {
  graphql: G;
  graphqlField: GraphQLFieldSpec;
  rest: RestRoute;
  scope: Access;
  input: I;
  contract: C;
  toRequest: (input: z.output<I>) => z.input<C['request']>;
  /** Adjusts the service's answer (signing recording links), as REST does. */
  transform?: (data: z.output<C['reply']>, deps: GatewayDeps) => z.output<C['reply']>;
  idempotent?: boolean;
  graphqlArgs?: Operation['graphqlArgs'];
  graphqlResult?: (answer: z.output<C['reply']>) => unknown;
  /** The bus deadline, for work that grows with a campaign's size; default: BUS_REQUEST_TIMEOUT_MS. */
  timeoutMs?: number;
}): Unnamed<Operation<I, z.output<C['reply']>>> & { graphql: G } {
  const { contract, toRequest, transform, timeoutMs, ...rest } = spec;
  const options = timeoutMs === undefined ? {} : { timeoutMs };
  return {
    ...rest,
    reply: contract.reply,
    run: async (deps, input, context) => {
      const data = await deps.client.call(contract, toRequest(input), context, options);
      return transform ? transform(data, deps) : data;
    },
    ...(transform === undefined
      ? {
          runJson: (deps, input, context) =>
            deps.client.callJson(contract, toRequest(input), context, options),
        }
      : {}),
  };
}

/** Who is asking and the request they came with. */
export interface Caller {
  principal: Principal | undefined;
  context: CallContext;
  idempotencyKey?: string | undefined;
}

/** The principal an operation needs, or the 401/403 it answers. */
export function authorize(op: Pick<Operation, 'scope'>, caller: Caller): Principal | undefined {
  if (op.scope === null) return caller.principal;
  if (!caller.principal)
    throw new AppError('UNAUTHORIZED', 'Missing API key: send Authorization: Bearer <API_KEY>');
  if (op.scope !== 'any-key' && !caller.principal.scopes.includes(op.scope)) {
    throw new AppError('FORBIDDEN', `This API key lacks the ${op.scope} scope`);
  }
  return caller.principal;
}

/** An input as an operation's schema reads it, or the 422 naming every problem (`loc` starting "input"). */
export function parseInput<I extends z.ZodType>(schema: I, rawInput: unknown): z.output<I> {
  // What REST's body parser refuses, refused here for tRPC and GraphQL inputs too.
  assertSafeInput(rawInput, 'input');
  const parsed = schema.safeParse(rawInput ?? {});
  if (!parsed.success) throw AppError.validation(toValidationIssues(parsed.error.issues, 'input'));
  return parsed.data;
}

/** The ways of running an operation that a surface may use to make its answer. */
export interface Runs<O> {
  /** The operation's result. */
  result: () => Promise<O>;
  /** Its result as the service's JSON text, unparsed, when the operation has one to give (see runJson). */
  json: (() => Promise<string | undefined>) | undefined;
}

/** How a surface answers through invoke, when its answer is more than the operation's result. */
export interface Answering {
  /**
   * The input was read and validated by the surface's own schemas (REST's, whose 422s name where a
   * value came from: body, query or path), so it is not validated again.
   */
  validated?: boolean;
  /** What an idempotency key is bound to. Default: the operation's name and its input. */
  requestHash?: string;
  /** The surface's answer: what an idempotency key stores and a repeat is answered with. */
  answer: (runs: Runs<unknown>) => Promise<StoredResponse>;
}

/**
 * Runs an operation for a caller, the one path of every surface: scope (401/403), input validation
 * (422 naming every problem), the run, and an idempotency key on an idempotent operation.
 */
export async function execute(
  deps: GatewayDeps,
  op: AnyOperation,
  rawInput: unknown,
  caller: Caller,
  answering: Answering,
): Promise<StoredResponse & { replayed: boolean }> {
  const principal = authorize(op, caller);
  // What the operation's schema (or the surface's, when it validated) made of the raw input.
  let input = rawInput as never;
  if (!answering.validated) input = parseInput(op.input, rawInput) as never;
  const context = { ...caller.context, accountId: principal?.accountId };
  const { runJson } = op;
  const runs: Runs<unknown> = {
    result: () => op.run(deps, input, context, principal),
    json: runJson && (() => runJson(deps, input, context, principal)),
  };
  const key = op.idempotent ? caller.idempotencyKey : undefined;
  if (key === undefined || !principal) return { ...(await answering.answer(runs)), replayed: false };
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw AppError.validation([
      {
        loc: ['header', 'idempotency-key'],
        msg: 'must be 8 to 255 visible ASCII characters',
        type: 'invalid_format',
      },
    ]);
  }
  // Hashed by operation by default, so the key is shared with REST's store but a body sent to REST
  // and the same body sent here are different requests (their stored answers have different shapes).
  const hash = answering.requestHash ?? requestHash('OPERATION', op.name, input);
  return idempotent(deps.sql, principal.accountId, key, hash, () => answering.answer(runs));
}

/** Runs an operation for a caller (see execute), answering its result. */
export async function invoke<O>(
  deps: GatewayDeps,
  op: AnyOperation & { run: Run<never, O> },
  rawInput: unknown,
  caller: Caller,
  options: Pick<Answering, 'validated'> = {},
): Promise<O> {
  const outcome = await execute(deps, op, rawInput, caller, {
    ...options,
    answer: async ({ result }) => ({ status: 200, body: await result() }),
  });
  return outcome.body as O;
}
