import { createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now (the OS picks it). Another process may still take it
 * before the caller binds, so callers that can retry on "address in use" should.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
