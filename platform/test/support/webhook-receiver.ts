import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

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
  /** Replaces how requests are answered from now on (by path, or by what the headers say). */
  answerWith(answer: (path: string, headers: IncomingHttpHeaders) => ReceiverAnswer): void;
  /** Stops listening (connections are refused, as when the receiver is down), keeping its port. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP server standing in for a customer's webhook endpoint, recording every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let answer: (path: string, headers: IncomingHttpHeaders) => ReceiverAnswer = answerByPath;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const decided = answer(path, req.headers);
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
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    requestsTo: (path) => received.filter((r) => r.path === path),
    answerWith(next) {
      answer = next;
    },
    down: stop,
    up: () => listen(port),
    close: stop,
  };
}

/** Verifies X-Service-Signature the way a receiver does: HMAC over the raw body, constant-time compare. */
export function signatureVerifies(secret: string, raw: Buffer, signature: string): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const Iso = z.iso.datetime({ offset: true });
/** The documented CALL_ENDED body, as a receiver would check it. */
export const CallEndedBody = z.strictObject({
  event: z.literal('CALL_ENDED'),
  timestamp: z.iso.datetime(),
  data: z.strictObject({
    session_id: z.string(),
    phone_number: z.string(),
    direction: z.string(),
    status: z.enum(['completed', 'no_answer', 'failed', 'voicemail', 'busy']),
    duration_seconds: z.number().int(),
    duration_minutes: z.number(),
    started_at: Iso,
    ended_at: Iso,
    agent_id: z.string(),
    agent_type: z.string(),
    sentiment: z.enum(['positive', 'neutral', 'negative']),
    call_summary: z.string(),
    call_end_reason: z.string(),
    ended_by: z.string(),
    details_collection: z.strictObject({
      status: z.string(),
      score: z.number(),
      collected_details: z.array(z.string()),
      collected_values: z.record(z.string(), z.unknown()),
    }),
    transcript: z.array(
      z.strictObject({
        role: z.enum(['agent', 'user']),
        content: z.string(),
        timestamp: z.string().regex(/^\d{2}:\d{2}:\d{2}$/),
        /** Speech recognition's confidence, on the callee's lines of a real call only. */
        confidence: z.number().min(0).max(1).optional(),
      }),
    ),
    /** A link, or `""` when the call produced no audio. */
    recording_url: z.union([z.url(), z.literal('')]),
    metadata: z.record(z.string(), z.unknown()),
    ai_cost: z.number(),
    telephony_cost: z.number(),
    total_cost: z.number(),
    /** How the call was carried. */
    telephony: z.strictObject({
      carrier: z.enum(['simulated', 'sip']),
      trunk_id: z.uuid().nullable(),
      sip_code: z.number().int().nullable(),
      sip_reason: z.string().nullable(),
    }),
    /** The person called asked not to be called again. */
    opted_out: z.boolean(),
  }),
});
