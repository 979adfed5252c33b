import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '@voice/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lingerAfterAnswer } from './raw-answer';

/**
 * Requests Node's HTTP server would answer itself, bare (no envelope, no request id, no rate-limit
 * headers), or drop without a word, taken through the gateway instead:
 *
 * - an HTTP/1.1 request without Host: Node's bare 400 unless told not to (`requireHostHeader:
 *   false`); `requireHost` then refuses it in the envelope;
 * - any Expect but 100-continue (even an empty one): Node's bare 417. RFC 9110 §10.1.1 lets a server
 *   ignore expectations it does not know: the request is served as if the header were absent;
 * - CONNECT: without a listener Node closes the connection unanswered; it is refused (405) the way
 *   the HTTP parser's refusals are.
 */
export const NODE_HTTP_OPTIONS = { requireHostHeader: false };

export function takeOverNodeAnswers(
  app: FastifyInstance,
  refuseMalformed: (error: Error & { code?: string }, socket: Socket) => void,
): void {
  const server = app.server;
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  server.on('connect', (request: IncomingMessage, socket: Socket) =>
    refuseMalformed(
      Object.assign(new Error(`${request.method} is not supported`), { code: 'HPE_INVALID_METHOD' }),
      socket,
    ),
  );
}

/**
 * onRequest hook: HTTP/1.1 requires a Host header (RFC 9112 §3.2): refused in the envelope. An
 * HTTP/1.0 request may leave it out: it gets this server's own address, so that whatever builds a
 * URL from the request (the GraphQL integration does) has one.
 */
export async function requireHost(request: FastifyRequest): Promise<void> {
  if (request.headers.host !== undefined) return;
  if (request.raw.httpVersion === '1.1') {
    throw new AppError('BAD_REQUEST', 'Missing Host header: HTTP/1.1 requests must send one');
  }
  const socket = request.raw.socket;
  const address = socket.localAddress?.includes(':') ? `[${socket.localAddress}]` : socket.localAddress;
  request.raw.headers.host = `${address ?? 'localhost'}:${socket.localPort ?? 80}`;
}

/**
 * onRequest hook: a body sent with GET or HEAD is never read (no route takes one). Left unread, it
 * is still in the socket when a `Connection: close` answer ends the connection, so the kernel resets
 * the connection instead of closing it, and a client still reading the answer loses its tail. Such
 * a body is read (and dropped) before the request goes on, under the same size limit as any body.
 */
export function drainBodyOfGet(limit: number) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    const raw = request.raw;
    const length = raw.headers['content-length'];
    if (raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
    await new Promise<void>((resolve, reject) => {
      let received = 0;
      const onData = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limit) return;
        raw.off('data', onData);
        raw.resume();
        reject(new AppError('PAYLOAD_TOO_LARGE'));
      };
      raw.on('data', onData);
      const cutShort = () => reject(new AppError('BAD_REQUEST', 'The request body was cut short'));
      raw.once('end', () => resolve());
      raw.once('error', cutShort);
      raw.once('close', cutShort);
    });
  };
}

/**
 * onSend hook: an error answered while the request's body is still on its way (refused from the
 * headers alone: 401, 404, 413, 415, 429, ...) goes out with `Connection: close`, and the connection
 * is then closed, lingering. Otherwise Node would keep the connection for the next request and read
 * (and drop) the rest of the body first, however slowly the client sends it.
 */
export async function closeWhenBodyUnread(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode < 400 || request.raw.complete) return payload;
  reply.header('connection', 'close');
  lingerAfterAnswer(request.raw.socket);
  return payload;
}

/**
 * onResponse hook: a request with `Connection: Upgrade` reaches Fastify through @fastify/websocket,
 * outside Node's HTTP server, whose connection handling then no longer applies. When no WebSocket
 * route took it (any REST path, an unknown one), the answer is written and the socket is left open
 * for good: nothing reads it, so even the client's close goes unseen, and it holds the server's
 * close forever. The plugin closes such sockets only for routes registered beside it.
 */
export async function closeUnupgradedSocket(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const upgrade = (request.raw as typeof request.raw & { upgrade?: boolean }).upgrade;
  if (upgrade && reply.statusCode !== 101) request.raw.socket.destroy();
}
