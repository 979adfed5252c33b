import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type Logger } from '@voice/shared';
import { writeRawAnswer } from './raw-answer';

/** At most one warning per this interval, however many connections are refused. */
const WARN_EVERY_MS = 10_000;

type ConnectionListener = (socket: Socket) => void;

/**
 * Caps the connections one client address holds open at `limit` (0: no cap), counted on the
 * socket's address (a proxy's X-Forwarded-For is not known before the headers). A connection past
 * the cap never reaches the HTTP server: it gets a 429 in the error envelope and is closed, without
 * touching the database (no rate-limit count, so no X-RateLimit-* headers), so a flood of them
 * costs little. Without it, one client opening connections and sending nothing (or trickling
 * bytes) could use up the process's file descriptors.
 */
export function capConnectionsPerAddress(server: Server, limit: number, log: Logger): void {
  if (limit <= 0) return;
  const open = new Map<string, number>();
  // The HTTP server's own handling (and anything else listening) runs only for admitted sockets.
  const admit = server.listeners('connection') as ConnectionListener[];
  server.removeAllListeners('connection');
  let refused = 0;
  let warnedAt = 0;
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      refused++;
      if (Date.now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = Date.now();
        log.warn(
          { address, limit, refused },
          'connections refused: client address at MAX_CONNECTIONS_PER_IP',
        );
        refused = 0;
      }
      socket.on('error', () => socket.destroy());
      const detail = `Too many open connections from your address (at most ${limit}); close some and retry`;
      writeRawAnswer(socket, new AppError('RATE_LIMITED', detail), { 'retry-after': 1 });
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const listener of admit) listener.call(server, socket);
  });
}
