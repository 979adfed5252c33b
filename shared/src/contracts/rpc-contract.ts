import type { z } from 'zod';

/** A request/reply subject: its name and the zod schemas of both directions. */
export interface RpcContract<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  subject: string;
  request: Req;
  reply: Res;
}

/** Declares a contract; calling and serving it is the bus's (callRpc, serveRpc in bus/rpc). */
export function rpc<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Res,
): RpcContract<Req, Res> {
  return { subject, request, reply };
}
