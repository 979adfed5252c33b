import { describeTestNumbers, Envelope, ErrorEnvelope } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkHealth, HealthReport } from '../../clients/health';
import type { GatewayDeps } from '../../deps';
import { callContext } from '../../http/context';
import { envelope, errorBody } from '../../http/envelope';
import { operationId } from '../../http/openapi-operation';
import { PUBLIC } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';

/** Without these the gateway can serve nothing; a service down only fails the requests that need it. */
const ESSENTIAL = { database: 'its database', bus: 'the message bus' } as const;

const Unavailable = ErrorEnvelope.extend({ data: HealthReport }).describe(
  'Not serving: the gateway cannot reach its database or the message bus (`detail` says which); ' +
    '`data` is the full report, with `status` `unavailable`',
);

const Liveness = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

export const systemRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, deps) => {
  app.get(
    '/v1/health',
    {
      config: { auth: PUBLIC },
      schema: {
        operationId: operationId('system.health'),
        tags: ['System'],
        summary: 'Health of the gateway and of every service behind it (readiness)',
        description:
          'Public. 200 while the gateway can serve: `status` is `ok` when every component answers, ' +
          'otherwise `degraded` with each component reported (a service that is down fails only the ' +
          'requests that need it). 503 when the gateway cannot reach its database or the message bus, ' +
          'so a load balancer or readiness probe takes it out until they are back. For a liveness ' +
          'probe use GET /v1/health/live, which checks nothing beyond the process. ' +
          '`telephony` names the provider calls go through: `simulated` (the default) places no real ' +
          `calls; its test numbers are the dialed number\u2019s last four digits: ${describeTestNumbers()}.`,
        security: [],
        response: {
          200: Envelope(HealthReport).describe(
            'Serving: every component\u2019s status, and the telephony provider',
          ),
          ...errorResponses(),
          503: Unavailable,
        },
      },
    },
    async (request, reply) => {
      const report = await checkHealth(deps.client, deps.sql, callContext(request), deps.version);
      const missing = (Object.keys(ESSENTIAL) as (keyof typeof ESSENTIAL)[]).filter(
        (name) => report.components[name].status !== 'ok',
      );
      if (missing.length === 0) return envelope(request, report);
      const detail = `Not serving: the gateway cannot reach ${missing.map((name) => ESSENTIAL[name]).join(' or ')}`;
      return reply
        .code(503)
        .send({ ...errorBody(request, detail), data: { ...report, status: 'unavailable' } });
    },
  );

  app.get(
    '/v1/health/live',
    {
      config: { auth: PUBLIC },
      schema: {
        operationId: operationId('system.liveness'),
        tags: ['System'],
        summary: 'Liveness: 200 while the gateway process runs',
        description:
          'Public. Checks no dependency: for a liveness probe (restart when it fails), where an ' +
          'outage of the database or of a service must not restart every gateway. Readiness: GET /v1/health.',
        security: [],
        response: { 200: Envelope(Liveness).describe('The process runs'), ...errorResponses() },
      },
    },
    async (request) => envelope(request, { status: 'ok' as const }),
  );
};
