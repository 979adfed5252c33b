import { describeTestNumbers, Envelope } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { checkHealth, HealthReport } from '../../clients/health';
import type { GatewayDeps } from '../../deps';
import { callContext } from '../../http/context';
import { envelope } from '../../http/envelope';
import { PUBLIC } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';

export const systemRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, deps) => {
  app.get(
    '/v1/health',
    {
      config: { auth: PUBLIC },
      schema: {
        tags: ['System'],
        summary: 'Health of the gateway and of every service behind it',
        description:
          'Public. Always 200 while the gateway runs: `status` is `ok` when every component answers, ' +
          'otherwise `degraded` with each component reported. `telephony` names the provider calls go ' +
          `through: \`simulated\` (the default) places no real calls; its test numbers are the dialed ` +
          `number\u2019s last four digits: ${describeTestNumbers()}.`,
        security: [],
        response: { 200: Envelope(HealthReport), ...errorResponses() },
      },
    },
    async (request) =>
      envelope(request, await checkHealth(deps.client, deps.sql, callContext(request), deps.version)),
  );
};
