import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
  headers as natsHeaders,
} from '@nats-io/transport-node';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { BusNoRespondersError } from './errors';
import { answerRequest, runListener } from './handlers';
import { ConnectionState, connectWithRetry } from './nats/connection';
import { DurableConsumer } from './nats/consumer';
import { mapNatsError } from './nats/errors';
import { fromNatsHeaders, MSG_ID_HEADER, toNatsHeaders } from './nats/headers';
import { InFlight } from './nats/in-flight';
import { Naming } from './nats/naming';
import { readPubAck } from './nats/pub-ack';
import { PublishBatch } from './nats/publish-batch';
import { Replies } from './nats/replies';
import { ReplyParts } from './nats/reply-parts';
import { ensureStream } from './nats/streams';
import { streamStores } from './subject-match';
import type {
  Bus,
  BusHeaders,
  BusMessage,
  BusStatus,
  ConsumeOptions,
  Listener,
  PublishDurableOptions,
  RequestOptions,
  Responder,
  StreamDefinition,
  Subscription,
} from './types';
import { waitAtMost } from './wait';
import {
  decode,
  decodeReply,
  decodeReplyJson,
  type EncodedReply,
  ERROR_HEADER,
  encode,
  encodeFailure,
  receivedMessage,
} from './wire';

const DRAIN_DEADLINE_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export interface NatsBusOptions {
  servers: string;
  /** Connection name shown by the server (monitoring, `nats server report connections`). */
  name: string;
  /** Isolates subjects, streams and durables; empty in production. */
  prefix: string;
  requestTimeoutMs: number;
  log: Logger;
  /**
   * Longest wait for the first connection, retrying while NATS is unreachable (default 30 s);
   * after that start-up fails naming the address.
   */
  connectTimeoutMs?: number;
  /** Gives up connecting at once (a shutdown signal during start-up). */
  signal?: AbortSignal;
  /** Largest reply sent as one message (default: the server's max_payload less headroom); tests lower it. */
  maxReplyPartBytes?: number;
}

/**
 * The bus over NATS: core request/reply and pub/sub, JetStream for durable events. Behaves as
 * InProcessBus does (one contract suite runs against both). While the server is unreachable,
 * requests and durable publishes fail at once with BusNoRespondersError (503) rather than after
 * their timeout; the connection keeps reconnecting, and subscriptions resume when it is back.
 */
export class NatsBus implements Bus {
  readonly kind = 'nats' as const;
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Set<NatsSubscription>();
  private readonly consumers = new Set<DurableConsumer>();
  private readonly streams = new Map<string, StreamDefinition>();
  private readonly connection: ConnectionState;
  private readonly replies: Replies;
  private readonly batch = new PublishBatch();
  private readonly replyParts: ReplyParts;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly naming: Naming,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: NatsBusOptions,
  ) {
    this.connection = new ConnectionState(nc, options.log.child({ nats: options.name }));
    this.replyParts = new ReplyParts(nc, naming.subject(''), options.log, options.maxReplyPartBytes);
    this.replies = new Replies(nc, this.batch);
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    // Built first so a bad prefix fails before any connection is made.
    const naming = new Naming(options.prefix);
    const nc = await connectWithRetry({
      servers: options.servers,
      name: options.name,
      log: options.log,
      timeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      signal: options.signal,
    });
    try {
      const jsm = await jetstreamManager(nc);
      return new NatsBus(naming, nc, jetstream(nc), jsm, options);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  status(): BusStatus {
    return this.connection.status(this.closing !== undefined);
  }

  connectionEpoch(): number {
    return this.connection.epoch;
  }

  async request(subject: string, data: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.assertReachable(subject);
    const timeout = options.timeoutMs ?? this.options.requestTimeoutMs;
    let body: string;
    try {
      const sent = this.replies.request(
        subject,
        this.naming.subject(subject),
        encode(data),
        toNatsHeaders(options.headers),
        timeout,
      );
      const reply: Msg = await this.connection.failOnDisconnect(sent, subject);
      body = await this.replyParts.join(reply, timeout);
    } catch (error) {
      throw mapNatsError(subject, error);
    }
    return options.replyAs === 'json' ? decodeReplyJson(subject, body) : decodeReply(subject, body);
  }

  respond(subject: string, responder: Responder, options: { queue?: string } = {}): Subscription {
    return this.listen(subject, options.queue, async (msg) => {
      const reply = await this.answer(subject, msg, responder);
      const headers = reply.errorCode ? toNatsHeaders({ [ERROR_HEADER]: reply.errorCode }) : undefined;
      try {
        const prepared = this.replyParts.prepare(reply.body, headers);
        this.batch.add(() => {
          try {
            msg.respond(prepared.data, prepared.headers ? { headers: prepared.headers } : undefined);
          } catch (error) {
            this.options.log.warn({ err: error, subject }, 'could not send reply');
          }
        });
      } catch (error) {
        this.options.log.warn({ err: error, subject }, 'could not send reply');
      }
    });
  }

  /**
   * Core publishes leave with the turn's replies (PublishBatch): a service that answers a request
   * and announces its effect in one turn (a placed call's first status, an agent's change notice)
   * sends both in one socket write, in the order they were made.
   */
  async publish(subject: string, data: unknown, headers?: BusHeaders): Promise<void> {
    this.assertOpen(subject);
    const natsSubject = this.naming.subject(subject);
    const payload = encode(data);
    const natsHeaders = toNatsHeaders(headers);
    this.batch.add(() => {
      try {
        this.nc.publish(natsSubject, payload, { headers: natsHeaders });
      } catch (error) {
        this.options.log.warn({ err: mapNatsError(subject, error), subject }, 'could not publish');
      }
    });
  }

  subscribe(subject: string, listener: Listener, options: { queue?: string } = {}): Subscription {
    // Parsed only if the listener reads `data` (receivedMessage); a body that is not JSON then
    // fails that listener, which runListener logs.
    return this.listen(subject, options.queue, (msg) =>
      runListener(
        listener,
        receivedMessage(this.naming.unprefixSubject(msg.subject), msg.string(), fromNatsHeaders(msg.headers)),
        this.options.log,
      ),
    );
  }

  async ensureStream(stream: StreamDefinition): Promise<void> {
    this.assertOpen(stream.name);
    await ensureStream(this.jsm, this.naming, stream);
    this.streams.set(stream.name, stream);
  }

  async publishDurable(subject: string, data: unknown, options: PublishDurableOptions): Promise<void> {
    this.assertReachable(subject);
    // Without a declared stream JetStream would answer "no responders" after its retries;
    // failing here is faster and catches a service that forgot ensureStream.
    const declared = [...this.streams.values()].some((s) => streamStores(s, subject));
    if (!declared) throw new BusNoRespondersError(subject);
    // The stream drops a duplicate msgId, but plain subscribers still see the core message:
    // only durable consumers are protected, as the Bus contract promises.
    // Published through the reply mux as a request, as @nats-io/jetstream's publish does over
    // nc.request, without the Error (and its stack trace) nats.js builds for every acknowledged
    // request, a measurable cost to the call service while calls end (docs/performance.md). A stream nobody
    // serves answers "no responders" (503), which the mux turns into BusNoRespondersError.
    const headers = toNatsHeaders(options.headers) ?? natsHeaders();
    headers.set(MSG_ID_HEADER, options.msgId);
    try {
      const stored = this.replies.request(
        subject,
        this.naming.subject(subject),
        encode(data),
        headers,
        this.options.requestTimeoutMs,
      );
      const ack = readPubAck(subject, (await this.connection.failOnDisconnect(stored, subject)).string());
      if (ack.duplicate)
        this.options.log.debug({ subject, event_id: options.msgId }, 'duplicate event dropped');
    } catch (error) {
      throw mapNatsError(subject, error);
    }
  }

  async consume(options: ConsumeOptions): Promise<Subscription> {
    this.assertOpen(options.durable);
    await this.ensureStream(options.stream);
    const consumer = new DurableConsumer(
      {
        js: this.js,
        jsm: this.jsm,
        naming: this.naming,
        log: this.options.log,
        inFlight: this.inFlight,
        ensureStream: () => this.ensureStream(options.stream),
      },
      options,
    );
    await consumer.start();
    this.consumers.add(consumer);
    return {
      unsubscribe: async () => {
        this.consumers.delete(consumer);
        await consumer.unsubscribe();
      },
    };
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((c) => c.unsubscribe()));
    // Drains wait on the server: skipped during an outage, bounded if one starts mid-drain.
    if (this.connection.isConnected) {
      const subs = Promise.allSettled([...this.subscriptions].map((s) => s.drain()));
      await waitAtMost(subs, DRAIN_DEADLINE_MS);
    }
    // Handlers still need the connection to ack durable messages and send replies.
    await this.inFlight.settled();
    this.batch.flush();
    this.replyParts.close();
    if (this.connection.isConnected) await waitAtMost(this.nc.drain(), DRAIN_DEADLINE_MS);
    if (!this.nc.isClosed()) await this.nc.close();
    // After the drain, which let replies already on their way arrive: what is left never will.
    this.replies.close();
    await this.connection.ended();
  }

  /** Handlers run concurrently: a slow one never holds up the next message. */
  private listen(
    subject: string,
    queue: string | undefined,
    handle: (msg: Msg) => Promise<void>,
  ): Subscription {
    this.assertOpen(subject);
    const log = this.options.log;
    const sub = this.nc.subscribe(this.naming.subject(subject), {
      ...(queue ? { queue } : {}),
      callback: (error, msg) => {
        if (error) {
          log.error({ err: error, subject }, 'subscription failed');
          return;
        }
        this.inFlight.run(() => handle(msg));
      },
    });
    this.subscriptions.add(sub);
    return {
      unsubscribe: async () => {
        this.subscriptions.delete(sub);
        if (!sub.isClosed()) await sub.drain().catch(() => sub.unsubscribe());
      },
    };
  }

  private async answer(subject: string, msg: Msg, responder: Responder): Promise<EncodedReply> {
    let request: BusMessage;
    try {
      request = this.toBusMessage(msg);
    } catch {
      return encodeFailure(new AppError('BAD_REQUEST', 'Request body is not valid JSON'));
    }
    return answerRequest(responder, request, subject, this.options.log);
  }

  private toBusMessage(msg: Msg): BusMessage {
    return {
      subject: this.naming.unprefixSubject(msg.subject),
      data: decode(msg.string()),
      headers: fromNatsHeaders(msg.headers),
    };
  }

  private assertOpen(subject: string): void {
    if (this.closing || this.nc.isClosed()) throw new BusNoRespondersError(subject);
  }

  /** Open and connected now: during an outage a request could only wait out its timeout. */
  private assertReachable(subject: string): void {
    this.assertOpen(subject);
    if (!this.connection.isConnected) throw this.connection.unavailable(subject);
  }
}
