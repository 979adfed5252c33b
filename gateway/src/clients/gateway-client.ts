import { type Bus, type CallContext, callRpc, callRpcJson, type RpcContract } from '@voice/shared';
import type { z } from 'zod';

/**
 * The gateway's one way to reach services: a typed call of a shared contract. REST routes,
 * GraphQL resolvers and tRPC procedures all go through here, so no operation exists three times.
 */
export class GatewayClient {
  constructor(readonly bus: Bus) {}

  call<C extends RpcContract>(
    contract: C,
    request: z.input<C['request']>,
    ctx: CallContext,
    options: { timeoutMs?: number } = {},
  ): Promise<z.output<C['reply']>> {
    return callRpc(this.bus, contract, request, ctx, options);
  }

  /** The same call, answered as the reply's JSON text (unparsed), for an answer sent on as it came. */
  callJson<C extends RpcContract>(
    contract: C,
    request: z.input<C['request']>,
    ctx: CallContext,
    options: { timeoutMs?: number } = {},
  ): Promise<string | undefined> {
    return callRpcJson(this.bus, contract, request, ctx, options);
  }
}
