import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode, type Logger, PUBLIC_RATE_LIMIT_PER_IP } from '@voice/shared';
import { type RateLimiter, rateLimitHeaders } from '../rate-limit/limiter';
import { writeRawAnswer } from './raw-answer';

/** Node's HTTP parser errors, which never reach a route: what the client did, in catalogue terms. */
const PARSER_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  HPE_INVALID_METHOD: 'METHOD_NOT_ALLOWED',
  // Headers or the whole request not in within HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS.
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
};

/** Whether an answer to the connection's current request has started: nothing may be written then. */
function answerStarted(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return current?.headersSent === true;
}

/**
 * Answers requests Node's HTTP parser refused (oversized headers, unknown methods, garbage) or
 * that did not arrive in time, in the same envelope and headers as every other error, charged to
 * the client's IP budget, and closes the connection.
 */
export function clientErrorHandler(limiter: RateLimiter, log: Logger) {
  // A connection being answered can fail again meanwhile (a timeout, then its end): answered once.
  const answering = new WeakSet<Socket>();
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (answering.has(socket)) return;
    if (!socket.writable || answerStarted(socket) || (error.code === 'ECONNRESET' && socket.destroyed)) {
      socket.destroy();
      return;
    }
    answering.add(socket);
    const appError = new AppError(PARSER_CODES[error.code ?? ''] ?? 'BAD_REQUEST');
    const requestId = randomUUID();
    const respond = (extra: Record<string, number>) => {
      if (socket.writable) writeRawAnswer(socket, appError, extra, requestId);
      else socket.destroy();
    };
    const what =
      appError.code === 'REQUEST_TIMEOUT' ? 'HTTP request not received in time' : 'malformed HTTP request';
    log.info({ code: error.code, request_id: requestId }, `${what}: refused`);
    limiter
      .hit(`ip:${socket.remoteAddress ?? 'unknown'}`, PUBLIC_RATE_LIMIT_PER_IP)
      .then((state) => respond(rateLimitHeaders(state)))
      .catch(() => respond({}));
  };
}
