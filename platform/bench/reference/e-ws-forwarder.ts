/**
 * Reference (e): a bare ws server forwarding NATS events to its sockets. A client connects to
 * `/?account=<id>`; every event published on `<prefix>.events.call.status.<account>.<call>` is sent
 * as it came to that account's sockets. NATS_URL, SUBJECT_PREFIX; prints `listening <url>`.
 */
import { createServer } from 'node:http';
import { connect } from '@nats-io/transport-node';
import { type WebSocket, WebSocketServer } from 'ws';
import { exitOnTerm } from './lifecycle';

const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const prefix = process.env.SUBJECT_PREFIX ?? 'benchref';
const byAccount = new Map<string, Set<WebSocket>>();

const server = createServer();
const wss = new WebSocketServer({ server });
wss.on('connection', (socket, request) => {
  const account = new URL(request.url ?? '/', 'http://x').searchParams.get('account') ?? '';
  const set = byAccount.get(account) ?? new Set();
  byAccount.set(account, set);
  set.add(socket);
  socket.on('close', () => set.delete(socket));
});

const start = `${prefix}.events.call.status.`.length;
nc.subscribe(`${prefix}.events.call.status.>`, {
  callback: (error, msg) => {
    if (error) return;
    const account = msg.subject.slice(start, msg.subject.indexOf('.', start));
    const sockets = byAccount.get(account);
    if (!sockets) return;
    const text = msg.string();
    for (const socket of sockets) socket.send(text);
  },
});
await nc.flush();

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
exitOnTerm(() => {
  for (const socket of wss.clients) socket.terminate();
  return nc.drain();
});
