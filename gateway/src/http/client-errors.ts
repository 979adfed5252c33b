import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode, type Logger, PUBLIC_RATE_LIMIT_PER_IP } from '@voice/shared';
import { type RateLimiter, rateLimitHeaders } from '../rate-limit/limiter';

/** Node's HTTP parser errors, which never reach a route: what the client did, in catalogue terms. */
const PARSER_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  HPE_INVALID_METHOD: 'METHOD_NOT_ALLOWED',
};

/**
 * Answers requests Node's HTTP parser refused (oversized headers, unknown methods, garbage) in the
 * same envelope and headers as every other error, charged to the client's IP budget.
 */
export function clientErrorHandler(limiter: RateLimiter, log: Logger) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (!socket.writable || (error.code === 'ECONNRESET' && socket.destroyed)) {
      socket.destroy();
      return;
    }
    const appError = new AppError(PARSER_CODES[error.code ?? ''] ?? 'BAD_REQUEST');
    const requestId = randomUUID();
    const respond = (extra: Record<string, number>) => {
      if (!socket.writable) return;
      const body = JSON.stringify({
        detail: appError.detail,
        request_id: requestId,
        timestamp: new Date().toISOString(),
        success: false,
      });
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'x-request-id': requestId,
        connection: 'close',
        ...extra,
      };
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join('\r\n');
      socket.end(`HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n${head}\r\n\r\n${body}`);
    };
    log.info({ code: error.code, request_id: requestId }, 'malformed HTTP request refused');
    limiter
      .hit(`ip:${socket.remoteAddress ?? 'unknown'}`, PUBLIC_RATE_LIMIT_PER_IP)
      .then((state) => respond(rateLimitHeaders(state)))
      .catch(() => respond({}));
  };
}
