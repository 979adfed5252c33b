import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log';
import type { Metrics } from './metrics';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  /** Where /metrics answers, e.g. http://127.0.0.1:9464/metrics. */
  url: string;
  /** Stops listening; a scrape under way finishes. Idempotent. */
  close(): Promise<void>;
}

/**
 * A plain node:http listener answering `GET /metrics` (and HEAD) with the exposition, 404 on
 * other paths and 405 on other methods: what a service process (no Fastify) serves on
 * METRICS_PORT, and the gateway too when METRICS_PORT keeps metrics off its API port.
 * Port 0 takes a free port; `url` tells which.
 */
export async function startMetricsServer(options: {
  metrics: Metrics;
  host: string;
  port: number;
  log: Logger;
}): Promise<MetricsServer> {
  const { metrics, log } = options;
  let closing = false;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: try /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    metrics.exposition().then(
      (text) => {
        // Stopping: no keep-alive, so the socket does not hold close() open.
        if (closing) res.setHeader('connection', 'close');
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        log.error({ err: error }, 'metrics exposition failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}${METRICS_PATH}`;
  let closed: Promise<void> | undefined;
  return {
    url,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        closing = true;
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive connections of past scrapes would hold close() open until they time out.
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
