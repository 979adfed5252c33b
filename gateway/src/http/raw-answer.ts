import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { AppError } from '@voice/shared';

/**
 * How long a connection we close is still read (and what arrives dropped) after our answer. Closed
 * at once with bytes of the client's unread, the kernel would reset the connection instead of
 * closing it, and a client still sending its body could lose the answer (RFC 9112 §9.6).
 */
export const LINGER_MS = 2000;

/**
 * Ends our side of the connection, drops whatever the client still sends, and closes it when the
 * client closes its side or LINGER_MS has passed, whichever comes first.
 */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed) return;
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', close);
  socket.on('error', close);
  socket.end();
  socket.resume();
}

/**
 * Makes Node's HTTP server close this connection the lingering way once its current answer (sent
 * with `Connection: close`) is out, instead of at once: Node ends a connection after such an answer
 * with `destroySoon`, which closes it as soon as the answer is flushed.
 */
export function lingerAfterAnswer(socket: Socket): void {
  socket.destroySoon = () => lingeringClose(socket);
}

/**
 * An answer written straight to a socket, for requests no route will see (refused by the HTTP
 * parser, timed out, over the connection cap): the error envelope with its own request id, then a
 * lingering close.
 */
export function writeRawAnswer(
  socket: Socket,
  error: AppError,
  headers: Record<string, number | string>,
  requestId: string = randomUUID(),
): void {
  const body = JSON.stringify({
    detail: error.detail,
    request_id: requestId,
    timestamp: new Date().toISOString(),
    success: false,
  });
  const all = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
    ...headers,
  };
  const head = Object.entries(all)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.write(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n\r\n${body}`);
  lingeringClose(socket);
}
