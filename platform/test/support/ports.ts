import { createServer } from 'node:net';

/** A port nothing listens on right now (the kernel's pick). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` consecutive free ports (the cluster launcher gives gateway n the port PORT + n - 1). */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    let ok = true;
    for (let i = 0; i < count && ok; i++) ok = await portFree(base + i);
    if (ok) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}
