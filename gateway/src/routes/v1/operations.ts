import type { FastifyPluginAsync } from 'fastify';
import type { GatewayDeps } from '../../deps';
import { registerOperationRoutes } from '../../http/rpc-route';
import { OPERATIONS } from '../../operations/catalogue';
import type { AnyOperation } from '../../operations/operation';

/** The REST route of every operation of the catalogue, in its order. */
export const operationRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  registerOperationRoutes(app, deps, Object.values(OPERATIONS) as AnyOperation[]);
};
