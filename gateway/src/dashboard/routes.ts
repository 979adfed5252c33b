import { AppError } from '@voice/shared';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC } from '../http/route-auth';
import { type Asset, type DashboardAssets, encodingFor, loadDashboard } from './assets';

export interface DashboardOptions {
  /** Where clients reach this gateway: recording links point there (the page's media-src). */
  publicBaseUrl: () => string;
  /** The built dashboard (default: read from its folder at registration). */
  assets?: DashboardAssets | undefined;
}

/** A Host header safe to repeat in a header value (requireHost has already refused a missing one). */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Only the page's own files run; it talks to this gateway over fetch and graphql-ws (ws: or wss: to
 * the same host, which older browsers do not count as 'self') and plays recordings from the
 * gateway's public address.
 */
export function contentSecurityPolicy(host: string | undefined, publicBaseUrl: string): string {
  const sockets = host && HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  let media = "'self'";
  try {
    const origin = new URL(publicBaseUrl).origin;
    if (origin !== 'null') media += ` ${origin}`;
  } catch {
    // No usable public address: same origin only.
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    `media-src ${media}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(request: FastifyRequest, reply: FastifyReply, file: Asset, cacheControl: string): FastifyReply {
  reply
    .header('content-type', file.type)
    .header('cache-control', cacheControl)
    .header('etag', file.etag)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const { body, encoding } = encodingFor(file, request.headers['accept-encoding']);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(body);
}

/**
 * The operations dashboard (gateway/dashboard, docs/dashboard.md): hashed assets cached for ever,
 * and index.html for /dashboard and every path under it (the app's own routes, so deep links
 * load), never cached, with a strict Content-Security-Policy.
 */
export const dashboardRoutes: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const assets = options.assets ?? loadDashboard();
  if (!assets) app.log.warn('the dashboard is not built (gateway/dashboard/dist): /dashboard answers 503');

  const page = (request: FastifyRequest, reply: FastifyReply) => {
    if (!assets) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The dashboard is not built: run pnpm --filter @voice/dashboard build',
      );
    }
    reply
      .header('content-security-policy', contentSecurityPolicy(request.headers.host, options.publicBaseUrl()))
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY');
    return send(request, reply, assets.index, 'no-cache');
  };

  const config = { auth: PUBLIC };
  const hide = { hide: true };
  app.get('/dashboard', { config, schema: hide }, page);
  app.get<{ Params: { name: string } }>(
    '/dashboard/assets/:name',
    { config, schema: hide },
    (request, reply) => {
      const file = assets?.files.get(request.params.name);
      if (!file) throw new AppError('NOT_FOUND', 'No such dashboard asset');
      return send(request, reply, file, 'public, max-age=31536000, immutable');
    },
  );
  app.get('/dashboard/*', { config, schema: hide }, page);
};
