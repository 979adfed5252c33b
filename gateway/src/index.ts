export { BODY_LIMIT_BYTES, buildGateway, type Gateway, type GatewayOptions } from './app';
export { AccountStore } from './auth/account-store';
export { generateApiKey } from './auth/keys';
export { migrations } from './db/migrations';
export type { GatewayDeps } from './deps';
export { envelope } from './http/envelope';
export { ADMIN, ANY_KEY, PUBLIC, type RouteAuth, requireScope } from './http/route-auth';
export type { AppRouter } from './trpc/router';
