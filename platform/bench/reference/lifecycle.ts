import type { FastifyInstance } from 'fastify';

/** On SIGTERM: `stop` (close what the reference holds), then exit. */
export function exitOnTerm(stop: () => Promise<unknown>): void {
  process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
}

/**
 * Serves `app` on loopback at PORT (0 or unset: any free port) and prints `listening <url>`, the
 * line the bench waits for; on SIGTERM closes the app, then `release` (its clients), and exits.
 */
export async function listenUntilTerm(
  app: FastifyInstance,
  release: () => Promise<unknown> = async () => {},
): Promise<void> {
  const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stdout.write(`listening ${url}\n`);
  exitOnTerm(() => app.close().then(release));
}
