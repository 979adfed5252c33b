import { randomUUID } from 'node:crypto';
import { type Bus, type Logger, Metrics, type RecordingStore, type Sql } from '@voice/shared';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { AccountStore } from './auth/account-store';
import { CallLimitSync } from './auth/call-limits';
import { KeySessions } from './auth/key-sessions';
import { GatewayClient } from './clients/gateway-client';
import { dashboardRoutes } from './dashboard/routes';
import type { GatewayDeps } from './deps';
import { graphqlSurface } from './graphql/plugin';
import { AccountAdmission, admissionMetrics, admitWrites } from './http/account-admission';
import { clientErrorHandler } from './http/client-errors';
import { capConnectionsPerAddress } from './http/connection-cap';
import { parseJsonBody } from './http/json-body';
import {
  closeUnupgradedSocket,
  closeWhenBodyUnread,
  drainBodyOfGet,
  NODE_HTTP_OPTIONS,
  requireHost,
  takeOverNodeAnswers,
} from './http/node-answers';
import { toAppError } from './http/to-app-error';
import { zodValidatorCompiler } from './http/validation';
import { EventHub } from './live/event-hub';
import { chargeRequest, edgePlugin } from './plugins/edge';
import { errorsPlugin, sendError } from './plugins/errors';
import { metricsPlugin } from './plugins/metrics';
import { openapiPlugin } from './plugins/openapi';
import { RateLimiter } from './rate-limit/limiter';
import { recordingLinks } from './recordings/links';
import { adminRoutes } from './routes/admin/accounts';
import { callExportRoutes } from './routes/v1/calls-export';
import { operationRoutes } from './routes/v1/operations';
import { recordingRoutes } from './routes/v1/recordings';
import { systemRoutes } from './routes/v1/system';
import { loggableUrl } from './trpc/connection-params';
import { trpcSurface } from './trpc/plugin';

export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const JSON_TYPES = ['application/json', /^application\/[\w.-]+\+json$/] as const;

/** How long clients may take and how many connections one address may hold (README, "Configuration"). */
export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0: no cap. */
  maxConnectionsPerAddress: number;
  /** REST writes one account may have in flight, the rest waiting unread (0: no limit). */
  accountWritesInFlight: number;
  accountWritesShared: number;
}

export interface GatewayOptions {
  bus: Bus;
  http: HttpLimits;
  sql: Sql;
  /**
   * Where rate-limit counts are written: counts a database crash may lose, so their commits need
   * not wait for the disk (a pool with synchronous_commit off). Default: `sql`.
   */
  rateLimitSql?: Sql;
  log: Logger;
  adminToken: string | undefined;
  /** Fastify's trustProxy: false, a hop count, or proxy addresses/CIDRs. Never "trust everyone". */
  trustProxy?: false | number | string[];
  version?: string;
  /** Key for recording links; every gateway and webhook instance must share it. */
  recordingSecret: string;
  /** Where recordings of real calls are kept; the caller opens it and closes it after the gateway. */
  recordingStore: RecordingStore;
  /** Where clients reach this gateway (known only once it listens, for port 0). */
  publicBaseUrl: () => string;
  /** PUBLIC_BASE_URL when configured: the OpenAPI document's server (otherwise `/`). */
  publicUrl?: string | undefined;
  /** Further API surfaces (GraphQL, tRPC, ...), registered after the core routes with the same deps. */
  surfaces?: FastifyPluginAsync<GatewayDeps>[];
  /** The process's metrics registry (HTTP requests are counted into it); default: a private one. */
  metrics?: Metrics;
  /** Serve GET /metrics on the API port (the all-in-one process without METRICS_PORT). */
  serveMetrics?: boolean;
}

export interface Gateway {
  app: FastifyInstance;
  deps: GatewayDeps;
}

/** A client's X-Request-Id when it is safe to echo and log; otherwise a fresh one. */
function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/** A hop count trusts that many proxies nearest to us (X-Forwarded-For read from the right). */
function trustedProxies(setting: GatewayOptions['trustProxy']): FastifyServerOptions['trustProxy'] {
  if (typeof setting === 'number') return (_address: string, hop: number) => hop < setting;
  return setting ?? false;
}

/**
 * Node checks the timeouts of open connections every connectionsCheckingInterval (30 s by default):
 * often enough that a timeout is enforced within a second or half of itself.
 */
function serverTimeouts(limits: HttpLimits) {
  return {
    http: {
      ...NODE_HTTP_OPTIONS,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 2))),
    },
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
  };
}

/** Errors Fastify raises before any hook runs (bad URL encoding, oversized path parameters). */
function frameworkErrors(limiter: RateLimiter): FastifyServerOptions['frameworkErrors'] {
  return (error, request, reply) => {
    const appError = toAppError(error, undefined);
    void chargeRequest(limiter, request, undefined).then(({ headers }) =>
      sendError(request, reply.headers(headers), appError),
    );
  };
}

export async function buildGateway(options: GatewayOptions): Promise<Gateway> {
  const limiter = new RateLimiter(options.rateLimitSql ?? options.sql, options.log);
  // Listens on the limiter's pool: one listening connection hears revocations for both.
  const sessions = new KeySessions(options.sql, options.rateLimitSql ?? options.sql, options.log);
  const refuseMalformed = clientErrorHandler(limiter, options.log);
  const app = Fastify({
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req) => requestIdFrom(req.headers['x-request-id']),
    // One line per request (the onResponse hook below) instead of Fastify's two: logging was a
    // large share of the gateway's CPU per request (docs/performance.md). Said here, not as the top-level
    // disableRequestLogging, which Fastify ignores once a logController is given.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    trustProxy: trustedProxies(options.trustProxy),
    // The edge answers 503 in the envelope while closing; Fastify's own 503 has no envelope.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 1000 },
    ...serverTimeouts(options.http),
    frameworkErrors: frameworkErrors(limiter),
    clientErrorHandler: refuseMalformed,
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  takeOverNodeAnswers(app, refuseMalformed);
  capConnectionsPerAddress(app.server, options.http.maxConnectionsPerAddress, options.log);

  // JSON only (text/plain would otherwise be accepted as a string), through our parser.
  app.removeAllContentTypeParsers();
  for (const type of JSON_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseJsonBody(body.toString()));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  }
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // What Fastify's "incoming request" and "request completed" lines said, in one line, built from
  // fields that cannot hold a secret (no header, no body, no tRPC connectionParams in the URL). So it
  // skips the redaction every other line goes through, which was much of its cost (docs/performance.md).
  const accessLog = options.log.child({}, { redact: { paths: [] } });
  app.addHook('onResponse', async (request, reply) => {
    accessLog.info(
      {
        request_id: request.id,
        req: {
          method: request.method,
          url: loggableUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        },
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  });
  // close() only drops connections idle at that moment; a request finishing afterwards would keep
  // its keep-alive socket (and so the close) open for the whole keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  const client = new GatewayClient(options.bus);
  const deps: GatewayDeps = {
    client,
    sql: options.sql,
    accounts: new AccountStore(options.sql),
    callLimits: new CallLimitSync(options.sql, client, options.log),
    sessions,
    limiter,
    version: options.version ?? '1.0.0',
    recordingSecret: options.recordingSecret,
    recordings: recordingLinks(options.recordingSecret, options.publicBaseUrl),
    recordingStore: options.recordingStore,
    live: new EventHub(options.bus, options.log),
  };
  deps.live.start();
  sessions.start();
  deps.callLimits.start();
  app.addHook('onClose', () => deps.live.stop());
  app.addHook('onClose', () => deps.callLimits.stop());
  app.addHook('onClose', () => sessions.stop());
  // Unused leased places go back before the owner of the database connection ends it.
  app.addHook('onClose', () => limiter.close());

  const metrics = options.metrics ?? new Metrics({ role: 'gateway' });
  const admission = new AccountAdmission({
    perAccount: options.http.accountWritesInFlight,
    shared: options.http.accountWritesShared,
  });
  admissionMetrics(metrics, admission);
  await app.register(metricsPlugin, {
    metrics,
    serve: options.serveMetrics ?? false,
  });
  await app.register(errorsPlugin);
  await app.register(edgePlugin, {
    accounts: deps.accounts,
    limiter,
    adminToken: options.adminToken,
    isClosing: () => closing,
  });
  // After the edge (so the answer is charged and carries the rate-limit headers).
  app.addHook('onRequest', requireHost);
  app.addHook('onRequest', admitWrites(admission));
  app.addHook('onRequest', drainBodyOfGet(BODY_LIMIT_BYTES));
  app.addHook('onSend', closeWhenBodyUnread);
  app.addHook('onResponse', closeUnupgradedSocket);
  await app.register(openapiPlugin, { publicUrl: options.publicUrl });
  await app.register(systemRoutes, deps);
  // Every operation of the catalogue, then the routes that are not operations (see catalogue.ts).
  await app.register(operationRoutes, deps);
  await app.register(callExportRoutes, deps);
  await app.register(recordingRoutes, deps);
  await app.register(dashboardRoutes, { publicBaseUrl: options.publicBaseUrl });
  await app.register(graphqlSurface, deps);
  await app.register(trpcSurface, deps);
  if (options.adminToken) await app.register(adminRoutes, deps);
  for (const surface of options.surfaces ?? []) await app.register(surface, deps);
  await app.ready();
  return { app, deps };
}
