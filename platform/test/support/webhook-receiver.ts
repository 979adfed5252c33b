import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
  /** The status this receiver answered, or null when it never answered. */
  answered: number | null;
}

/** How the receiver answers one request: a status (with an optional Location), or never. */
export type ReceiverAnswer = { status: number; location?: string } | 'hang';

/** Answers by path prefix, like a set of test endpoints: /ok, /e500, /e404, /r302; /hang never answers. */
export function answerByPath(path: string): ReceiverAnswer {
  if (path.startsWith('/ok')) return { status: 200 };
  if (path.startsWith('/e500')) return { status: 500 };
  if (path.startsWith('/e404')) return { status: 404 };
  if (path.startsWith('/r302')) return { status: 302, location: '/ok/redirected' };
  return 'hang';
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  requestsTo(path: string): ReceivedWebhook[];
  /** Replaces how requests are answered from now on. */
  answerWith(answer: (path: string) => ReceiverAnswer): void;
  close(): Promise<void>;
}

/** A real HTTP server standing in for a customer's webhook endpoint, recording every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let answer = answerByPath;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const decided = answer(path);
      const entry: ReceivedWebhook = {
        path,
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
        answered: decided === 'hang' ? null : decided.status,
      };
      received.push(entry);
      if (decided === 'hang') return;
      res.writeHead(decided.status, decided.location ? { Location: decided.location } : {}).end('answered');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    requestsTo: (path) => received.filter((r) => r.path === path),
    answerWith(next) {
      answer = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Verifies X-Service-Signature the way a receiver does: HMAC over the raw body, constant-time compare. */
export function signatureVerifies(secret: string, raw: Buffer, signature: string): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
