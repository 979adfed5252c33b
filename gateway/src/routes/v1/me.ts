import type { FastifyPluginAsync } from 'fastify';
import type { GatewayDeps } from '../../deps';
import { type RpcRoute, registerRpcRoutes } from '../../http/rpc-route';
import { OPERATIONS } from '../../operations/catalogue';

const ME_ROUTE: RpcRoute = {
  method: 'GET',
  url: '/v1/me',
  operation: OPERATIONS.me,
  tags: ['System'],
  summary: 'The account and scopes of the calling API key (beyond the spec)',
  status: 200,
  answers: 'The key\u2019s account, its rate limit and the key\u2019s scopes',
  errors: [401],
};

/** Beyond the spec: lets a developer check which account and scopes a key carries. */
export const meRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  registerRpcRoutes(app, deps, [ME_ROUTE]);
};
