import { LATENCY_BUCKETS, METRICS_PATH, type Metrics } from '@voice/shared';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PUBLIC } from '../http/route-auth';

export interface MetricsPluginOptions {
  metrics: Metrics;
  /** Serve GET /metrics on this (the API) port: the all-in-one process without METRICS_PORT. */
  serve: boolean;
}

/** The route label of a request that matched no route: raw paths would make the label unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts and times every answered request by method, route template (`/v1/agents/:agent_id`,
 * `/graphql`, `/trpc/:path`; never the raw URL) and status, and serves the exposition when asked.
 */
export const metricsPlugin = fp<MetricsPluginOptions>(
  async (app: FastifyInstance, { metrics, serve }) => {
    const labels = ['method', 'route', 'status'] as const;
    const requests = metrics.counter(
      'http_requests_total',
      'HTTP requests answered, by method, route template and status',
      labels,
    );
    const duration = metrics.histogram(
      'http_request_duration_seconds',
      'Time from receiving an HTTP request to the end of its response, by method, route template and status',
      labels,
      LATENCY_BUCKETS,
    );
    app.addHook('onResponse', async (request, reply) => {
      const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
      const values = { method: request.method, route, status: String(reply.statusCode) };
      requests.inc(values);
      duration.observe(values, reply.elapsedTime / 1000);
    });
    if (serve) {
      // Operational, not part of the API: hidden from the OpenAPI document.
      app.get(METRICS_PATH, { schema: { hide: true }, config: { auth: PUBLIC } }, async (_request, reply) =>
        reply.type(metrics.contentType).send(await metrics.exposition()),
      );
    }
  },
  { name: 'metrics' },
);
