import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { RpcContract } from '../contracts/rpc-contract';
import { AppError, databaseUnavailable, fromDatabaseError } from '../errors';
import type { Logger } from '../log';
import { toValidationIssues } from '../validation';
import { type Bus, type BusHeaders, HEADER, type RequestOptions, type Subscription } from './types';
import { EncodedJson } from './wire';

/** Who is asking and on behalf of which request; travels in bus headers. */
export interface CallContext {
  requestId: string;
  accountId?: string | undefined;
  traceparent?: string | undefined;
}

export interface RpcContext extends CallContext {
  log: Logger;
}

export function contextHeaders(ctx: CallContext): BusHeaders {
  const headers: BusHeaders = { [HEADER.requestId]: ctx.requestId };
  if (ctx.accountId) headers[HEADER.accountId] = ctx.accountId;
  if (ctx.traceparent) headers[HEADER.traceparent] = ctx.traceparent;
  return headers;
}

export function contextFromHeaders(headers: BusHeaders): CallContext {
  return {
    requestId: headers[HEADER.requestId] ?? randomUUID(),
    accountId: headers[HEADER.accountId],
    traceparent: headers[HEADER.traceparent],
  };
}

/** The account a request acts for; services refuse account-scoped work without one. */
export function requireAccount(ctx: CallContext): string {
  if (!ctx.accountId) throw new AppError('UNAUTHORIZED', 'No account on this request');
  return ctx.accountId;
}

export type RpcHandler<C extends RpcContract> = (
  request: z.output<C['request']>,
  ctx: RpcContext,
) => Promise<z.input<C['reply']> | EncodedJson>;

/**
 * `value` checked against `contract`'s reply schema and written as JSON once, for a handler that
 * keeps it and answers with it again while what it was made from is unchanged (the agent service
 * does, per agent row version). serveRpc sends it as it is: the check was made here.
 */
export function validatedReply<C extends RpcContract>(contract: C, value: z.input<C['reply']>): EncodedJson {
  const reply = contract.reply.safeParse(value);
  if (!reply.success) {
    throw new Error(
      `${contract.subject} reply does not match its contract: ${JSON.stringify(reply.error.issues).slice(0, 500)}`,
    );
  }
  return new EncodedJson(JSON.stringify(reply.data));
}

/**
 * Serves one contract: decodes and validates the request, runs the handler, validates the reply
 * so a service can never answer outside its contract. This is the one check of a reply (callRpc
 * trusts it): contracts are served only through here, and a failure is caught where the bug is.
 */
export function serveRpc<C extends RpcContract>(
  bus: Bus,
  contract: C,
  handler: RpcHandler<C>,
  options: { queue: string; log: Logger },
): Subscription {
  return bus.respond(
    contract.subject,
    async (msg) => {
      const ctx = contextFromHeaders(msg.headers);
      // The request's logger is made only if something logs (a child logger per request is
      // measurable on the hot path, and most requests log nothing).
      let log: Logger | undefined;
      const logger = () => {
        log ??= options.log.child({ request_id: ctx.requestId, subject: contract.subject });
        return log;
      };
      const parsed = contract.request.safeParse(msg.data);
      if (!parsed.success) throw AppError.validation(toValidationIssues(parsed.error.issues, 'body'));
      const started = performance.now();
      const rpcContext: RpcContext = {
        ...ctx,
        get log() {
          return logger();
        },
      };
      const result = await handler(parsed.data as z.output<C['request']>, rpcContext).catch(
        (error: unknown) => {
          throw fromDatabaseError(error) ?? databaseUnavailable(error) ?? error;
        },
      );
      if (options.log.isLevelEnabled('debug'))
        logger().debug({ duration_ms: Math.round(performance.now() - started) }, 'handled');
      if (result instanceof EncodedJson) return result;
      const reply = contract.reply.safeParse(result);
      if (!reply.success) {
        logger().error({ issues: reply.error.issues }, 'reply does not match its contract');
        throw new AppError('INTERNAL');
      }
      return reply.data;
    },
    { queue: options.queue },
  );
}

/** An account-scoped handler: it gets the caller's account id, checked present before it runs. */
export type AccountRpcHandler<C extends RpcContract> = (
  request: z.output<C['request']>,
  accountId: string,
  ctx: RpcContext,
) => Promise<z.input<C['reply']> | EncodedJson>;

/** serveRpc bound to one service's bus, queue and logger. */
export interface RpcServer {
  serve<C extends RpcContract>(contract: C, handler: RpcHandler<C>): Subscription;
  /** For an operation on the caller's account: refused (UNAUTHORIZED) without one, so no handler forgets it. */
  forAccount<C extends RpcContract>(contract: C, handler: AccountRpcHandler<C>): Subscription;
}

export function rpcServer(bus: Bus, options: { queue: string; log: Logger }): RpcServer {
  return {
    serve: (contract, handler) => serveRpc(bus, contract, handler, options),
    forAccount: (contract, handler) =>
      serveRpc(bus, contract, (request, ctx) => handler(request, requireAccount(ctx), ctx), options),
  };
}

/**
 * Calls one contract and returns its reply, as serveRpc checked it against the contract's reply
 * schema before sending. It is not parsed again here: the second check of every reply was a
 * measurable share of the gateway's CPU (BENCHMARKS.md), and a reply schema's output is its own
 * fixed point (the contracts' replies have no transforms; defaults are already applied), so the
 * JSON that arrives is what a second parse would return.
 */
export async function callRpc<C extends RpcContract>(
  bus: Bus,
  contract: C,
  request: z.input<C['request']>,
  ctx: CallContext,
  options: { timeoutMs?: number } = {},
): Promise<z.output<C['reply']>> {
  return (await bus.request(contract.subject, request, requestOptions(ctx, options))) as z.output<C['reply']>;
}

/**
 * As callRpc, but answers the reply's JSON text as the service sent it (undefined for a reply
 * without a value), unparsed: for a caller that sends the reply on unchanged.
 */
export async function callRpcJson<C extends RpcContract>(
  bus: Bus,
  contract: C,
  request: z.input<C['request']>,
  ctx: CallContext,
  options: { timeoutMs?: number } = {},
): Promise<string | undefined> {
  return (await bus.request(contract.subject, request, {
    ...requestOptions(ctx, options),
    replyAs: 'json',
  })) as string | undefined;
}

/** A contract call's bus options: the caller's context as headers, and its timeout if it set one. */
function requestOptions(ctx: CallContext, options: { timeoutMs?: number }): RequestOptions {
  return {
    headers: contextHeaders(ctx),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
}
