import { randomUUID } from 'node:crypto';
import {
  type MsgHdrs,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import type { Logger } from '../../log';

export const PARTS_HEADER = 'x-reply-parts';
const TOKEN_HEADER = 'x-reply-token';
const SOURCE_HEADER = 'x-reply-source';
/** Room left for headers and protocol framing under the server's max_payload. */
const HEADROOM_BYTES = 16 * 1024;
/** How long a responder keeps the rest of a large reply for its requester to fetch. */
const HOLD_MS = 30_000;

interface Held {
  parts: Uint8Array[];
  fetched: number;
  timer: NodeJS.Timeout;
}

/**
 * Replies larger than one NATS message (a page of long call records, a batch of agents with long
 * prompts): the responder sends the first part as the reply, marked with the part count, and holds
 * the rest for a short while; the requester fetches them one by one from the responder's own
 * subject and joins the bytes. Replies that fit, nearly all of them, take the plain path.
 */
export class ReplyParts {
  private readonly held = new Map<string, Held>();
  private readonly subject: string;
  private subscription: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    subjectPrefix: string,
    private readonly log: Logger,
    /** Overrides the part size (tests); the default follows the server's max_payload. */
    private readonly partBytes?: number,
  ) {
    this.subject = `${subjectPrefix}_bus.reply_parts.${randomUUID().replaceAll('-', '')}`;
  }

  /** Most bytes one reply message may carry on this connection. */
  get limit(): number {
    return this.partBytes ?? Math.max(64 * 1024, (this.nc.info?.max_payload ?? 1024 * 1024) - HEADROOM_BYTES);
  }

  /** The reply to send for `body`: itself when it fits, else its first part with the headers that announce the rest. */
  prepare(
    body: string,
    headers: MsgHdrs | undefined,
  ): { data: Uint8Array | string; headers: MsgHdrs | undefined } {
    const bytes = Buffer.from(body);
    if (bytes.length <= this.limit) return { data: body, headers };
    const parts: Uint8Array[] = [];
    for (let offset = 0; offset < bytes.length; offset += this.limit) {
      parts.push(bytes.subarray(offset, offset + this.limit));
    }
    const token = randomUUID();
    this.ensureServing();
    const timer = setTimeout(() => this.held.delete(token), HOLD_MS);
    timer.unref();
    this.held.set(token, { parts, fetched: 1, timer });
    const out = headers ?? natsHeaders();
    out.set(PARTS_HEADER, String(parts.length));
    out.set(TOKEN_HEADER, token);
    out.set(SOURCE_HEADER, this.subject);
    return { data: parts[0]!, headers: out };
  }

  /** The whole reply body: the message's own when it is whole, else joined with the parts fetched. */
  async join(first: { data: Uint8Array; headers?: MsgHdrs | undefined }, timeoutMs: number): Promise<string> {
    const count = Number(first.headers?.get(PARTS_HEADER) || '1');
    // A view of the message's bytes, not a copy of them (Buffer.from of a Uint8Array copies).
    if (count <= 1)
      return Buffer.from(first.data.buffer, first.data.byteOffset, first.data.byteLength).toString('utf8');
    const token = first.headers!.get(TOKEN_HEADER);
    const source = first.headers!.get(SOURCE_HEADER);
    const chunks: Uint8Array[] = [first.data];
    for (let index = 1; index < count; index++) {
      const part = await this.nc.request(source, JSON.stringify({ token, index }), { timeout: timeoutMs });
      if (part.data.length === 0) throw new Error('a part of a large reply expired before it was fetched');
      chunks.push(part.data);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private ensureServing(): void {
    if (this.subscription) return;
    this.subscription = this.nc.subscribe(this.subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          const { token, index } = JSON.parse(msg.string()) as { token: string; index: number };
          const held = this.held.get(token);
          const part = held?.parts[index];
          msg.respond(part ?? new Uint8Array());
          if (held && part && ++held.fetched === held.parts.length) {
            clearTimeout(held.timer);
            this.held.delete(token);
          }
        } catch (failure) {
          this.log.warn({ err: failure }, 'could not serve a part of a large reply');
        }
      },
    });
  }

  close(): void {
    for (const held of this.held.values()) clearTimeout(held.timer);
    this.held.clear();
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }
}
