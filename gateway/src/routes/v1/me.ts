import { Envelope, Plan, Scope, Uuid } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { envelope } from '../../http/envelope';
import { operationId } from '../../http/openapi-operation';
import { ANY_KEY, principalOf } from '../../http/route-auth';
import { BEARER, errorResponses } from '../../http/schemas';

const Me = z
  .object({
    account: z.object({ id: Uuid, name: z.string(), plan: Plan, rate_limit_per_minute: z.number().int() }),
    key: z.object({ id: Uuid, scopes: z.array(Scope) }),
  })
  .meta({ id: 'Me' });

/** Beyond the spec: lets a developer check which account and scopes a key carries. */
export const meRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, { accounts }) => {
  app.get(
    '/v1/me',
    {
      config: { auth: ANY_KEY },
      schema: {
        operationId: operationId('me'),
        tags: ['System'],
        summary: 'The account and scopes of the calling API key (beyond the spec)',
        security: BEARER,
        response: {
          200: Envelope(Me).describe('The key\u2019s account, its rate limit and the key\u2019s scopes'),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const account = await accounts.getAccount(principal.accountId);
      return envelope(request, {
        account: {
          id: account.id,
          name: account.name,
          plan: account.plan,
          rate_limit_per_minute: principal.rateLimitPerMinute,
        },
        key: { id: principal.keyId, scopes: [...principal.scopes] },
      });
    },
  );
};
