import { createConnection, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  /** Drops every connection through the proxy and refuses new ones until `resume`. */
  cut(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy to the server of `url` (a database URL), so a test can take a client's connections
 * away (a network failure between it and the server) while the server itself stays up.
 */
export async function startTcpProxy(url: string): Promise<TcpProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let accepting = true;
  const server = createServer((client) => {
    if (!accepting) {
      client.destroy();
      return;
    }
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    const pair = [client, upstream];
    const drop = () => {
      for (const socket of pair) {
        socket.destroy();
        sockets.delete(socket);
      }
    };
    for (const socket of pair) {
      sockets.add(socket);
      socket.on('error', drop);
      socket.on('close', drop);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(address.port);
  return {
    url: proxied.toString(),
    cut() {
      accepting = false;
      for (const socket of [...sockets]) socket.destroy();
    },
    resume() {
      accepting = true;
    },
    async close() {
      for (const socket of [...sockets]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
