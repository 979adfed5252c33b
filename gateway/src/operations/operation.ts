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
import { idempotent, requestHash } from '../idempotency/idempotency';

/**
 * One operation of the public API, as every surface runs it: who may run it, the input it takes
 * (the REST shapes, snake_case; one resource is named `id`), what it answers and what runs it:
 * almost always one bus call of a shared contract (rpcOperation). Surfaces only translate their
 * arguments into this input and the AppError it may throw into their error format; REST routes
 * name their operation (see RpcRoute), so scope, reply, transform and idempotency are stated here.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O = unknown> {
  name: string;
  /** null: public, like the REST discovery lists. */
  scope: Scope | null;
  input: I;
  /** The schema of what run answers: REST's documented success reply. */
  reply: z.ZodType;
  run: (deps: GatewayDeps, input: z.output<I>, context: CallContext) => Promise<O>;
  /** Honours an idempotency key, sharing REST's store and its 24-hour window. */
  idempotent?: boolean;
  /**
   * For an operation whose answer is the service's reply as it came (one bus call, nothing
   * adjusted): run, answering that reply's JSON text unparsed, so REST sends it on as it came
   * instead of parsing it only to serialise it again.
   */
  runJson?: (deps: GatewayDeps, input: z.output<I>, context: CallContext) => Promise<string | undefined>;
}

export type Unnamed<O extends Operation> = Omit<O, 'name'>;

/** The catalogue with each operation named by its key (its tRPC path), so a name is written once. */
export function named<T extends Record<string, { scope: Scope | null }>>(
  operations: T,
): { [K in keyof T]: T[K] & { name: K } } {
  return Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, { ...op, name }])) as {
    [K in keyof T]: T[K] & { name: K };
  };
}

/** An operation that is one bus call: the input mapped to the contract's request, the reply adjusted. */
export function rpcOperation<I extends z.ZodType, C extends RpcContract>(spec: {
  scope: Scope | null;
  input: I;
  contract: C;
  toRequest: (input: z.output<I>) => z.input<C['request']>;
  /** Adjusts the service's answer (signing recording links), as REST does. */
  transform?: (data: z.output<C['reply']>, deps: GatewayDeps) => z.output<C['reply']>;
  idempotent?: boolean;
}): Unnamed<Operation<I, z.output<C['reply']>>> {
  const { contract, toRequest, transform, ...rest } = spec;
  return {
    ...rest,
    reply: contract.reply,
    run: async (deps, input, context) => {
      const data = await deps.client.call(contract, toRequest(input), context);
      return transform ? transform(data, deps) : data;
    },
    ...(transform === undefined
      ? { runJson: (deps, input, context) => deps.client.callJson(contract, toRequest(input), context) }
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
  if (!caller.principal.scopes.includes(op.scope)) {
    throw new AppError('FORBIDDEN', `This API key lacks the ${op.scope} scope`);
  }
  return caller.principal;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,255}$/;

/** Runs an operation for a caller: scope, input validation (422 naming every problem), the bus call. */
export async function invoke<I extends z.ZodType, O>(
  deps: GatewayDeps,
  op: Operation<I, O>,
  rawInput: unknown,
  caller: Caller,
): Promise<O> {
  const principal = authorize(op, caller);
  // What REST's body parser refuses, refused here for tRPC and GraphQL inputs too.
  assertSafeInput(rawInput, 'input');
  const parsed = op.input.safeParse(rawInput ?? {});
  if (!parsed.success) throw AppError.validation(toValidationIssues(parsed.error.issues, 'input'));
  const context = { ...caller.context, accountId: principal?.accountId };
  const run = () => op.run(deps, parsed.data, context);
  const key = op.idempotent ? caller.idempotencyKey : undefined;
  if (key === undefined || !principal) return run();
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw AppError.validation([
      {
        loc: ['header', 'idempotency-key'],
        msg: 'must be 8 to 255 visible ASCII characters',
        type: 'invalid_format',
      },
    ]);
  }
  // Hashed by operation, so the key is shared with REST's store but a body sent to REST and the
  // same body sent here are different requests (their stored responses have different shapes).
  const outcome = await idempotent(
    deps.sql,
    principal.accountId,
    key,
    requestHash('OPERATION', op.name, parsed.data),
    async () => ({
      status: 200,
      body: await run(),
    }),
  );
  return outcome.body as O;
}
