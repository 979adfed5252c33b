import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  connect,
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/transport-node';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { BusNoRespondersError } from './errors';
import { DurableConsumer } from './nats/consumer';
import { mapNatsError } from './nats/errors';
import { fromNatsHeaders, toNatsHeaders } from './nats/headers';
import { InFlight, withDeadline } from './nats/in-flight';
import { Naming } from './nats/naming';
import { ensureStream } from './nats/streams';
import { subjectMatches } from './subject-match';
import type {
  Bus,
  BusHeaders,
  BusMessage,
  ConsumeOptions,
  Listener,
  PublishDurableOptions,
  RequestOptions,
  Responder,
  StreamDefinition,
  Subscription,
} from './types';
import { HEADER } from './types';
import {
  decode,
  decodeReply,
  type EncodedReply,
  ERROR_HEADER,
  encode,
  encodeFailure,
  encodeSuccess,
} from './wire';

const DRAIN_DEADLINE_MS = 5_000;

export interface NatsBusOptions {
  servers: string;
  /** Connection name shown by the server (monitoring, `nats server report connections`). */
  name: string;
  /** Isolates subjects, streams and durables; empty in production. */
  prefix: string;
  requestTimeoutMs: number;
  log: Logger;
}

/**
 * The bus over NATS: core request/reply and pub/sub, JetStream for durable events. Behaves as
 * InProcessBus does (one contract suite runs against both), except that JetStream keeps
 * durable events for consumers that start later.
 */
export class NatsBus implements Bus {
  readonly kind = 'nats' as const;
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Set<NatsSubscription>();
  private readonly consumers = new Set<DurableConsumer>();
  private readonly streams = new Map<string, StreamDefinition>();
  private readonly statusLoop: Promise<void>;
  private closing: Promise<void> | undefined;
  private connected = true;

  private constructor(
    private readonly naming: Naming,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: NatsBusOptions,
  ) {
    this.statusLoop = this.logStatus();
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    // Built first so a bad prefix fails before any connection is made.
    const naming = new Naming(options.prefix);
    const nc = await connect({
      servers: options.servers,
      name: options.name,
      // Services must outlive any NATS outage; the default gives up after 10 attempts.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      // Notice a dead server within about a minute rather than the default six.
      pingInterval: 20_000,
      maxPingOut: 3,
    });
    try {
      const jsm = await jetstreamManager(nc);
      return new NatsBus(naming, nc, jetstream(nc), jsm, options);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  async request(subject: string, data: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.assertOpen(subject);
    let reply: Msg;
    try {
      reply = await this.nc.request(this.naming.subject(subject), encode(data), {
        timeout: options.timeoutMs ?? this.options.requestTimeoutMs,
        headers: toNatsHeaders(options.headers),
      });
    } catch (error) {
      throw mapNatsError(subject, error);
    }
    return decodeReply(subject, reply.string());
  }

  respond(subject: string, responder: Responder, options: { queue?: string } = {}): Subscription {
    return this.listen(subject, options.queue, async (msg) => {
      const reply = await this.answer(subject, msg, responder);
      const headers = reply.errorCode ? toNatsHeaders({ [ERROR_HEADER]: reply.errorCode }) : undefined;
      try {
        msg.respond(reply.body, headers ? { headers } : undefined);
      } catch (error) {
        this.options.log.warn({ err: error, subject }, 'could not send reply');
      }
    });
  }

  async publish(subject: string, data: unknown, headers?: BusHeaders): Promise<void> {
    this.assertOpen(subject);
    try {
      this.nc.publish(this.naming.subject(subject), encode(data), { headers: toNatsHeaders(headers) });
    } catch (error) {
      throw mapNatsError(subject, error);
    }
  }

  subscribe(subject: string, listener: Listener, options: { queue?: string } = {}): Subscription {
    return this.listen(subject, options.queue, async (msg) => {
      try {
        await listener(this.toBusMessage(msg));
      } catch (error) {
        const unprefixed = this.naming.unprefixSubject(msg.subject);
        this.options.log.error({ err: error, subject: unprefixed }, 'subscriber failed');
      }
    });
  }

  async ensureStream(stream: StreamDefinition): Promise<void> {
    this.assertOpen(stream.name);
    await ensureStream(this.jsm, this.naming, stream);
    this.streams.set(stream.name, stream);
  }

  async publishDurable(subject: string, data: unknown, options: PublishDurableOptions): Promise<void> {
    this.assertOpen(subject);
    // Without a declared stream JetStream would answer "no responders" after its retries;
    // failing here is faster and catches a service that forgot ensureStream.
    const declared = [...this.streams.values()].some((s) =>
      s.subjects.some((p) => subjectMatches(p, subject)),
    );
    if (!declared) throw new BusNoRespondersError(subject);
    // The stream drops a duplicate msgId, but plain subscribers still see the core message:
    // only durable consumers are protected, as the Bus contract promises.
    try {
      const ack = await this.js.publish(this.naming.subject(subject), encode(data), {
        msgID: options.msgId,
        headers: toNatsHeaders(options.headers),
        timeout: this.options.requestTimeoutMs,
      });
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
    if (this.connected) {
      const subs = Promise.allSettled([...this.subscriptions].map((s) => s.drain()));
      await withDeadline(subs, DRAIN_DEADLINE_MS);
    }
    // Handlers still need the connection to ack durable messages and send replies.
    await this.inFlight.settled();
    if (this.connected) await withDeadline(this.nc.drain(), DRAIN_DEADLINE_MS);
    if (!this.nc.isClosed()) await this.nc.close();
    await this.statusLoop;
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
    try {
      return encodeSuccess(await responder(request));
    } catch (error) {
      const failure = encodeFailure(error);
      if (failure.errorCode === 'INTERNAL') {
        this.options.log.error(
          { err: error, subject, request_id: request.headers[HEADER.requestId] },
          'responder failed',
        );
      }
      return failure;
    }
  }

  private toBusMessage(msg: Msg): BusMessage {
    return {
      subject: this.naming.unprefixSubject(msg.subject),
      data: decode(msg.string()),
      headers: fromNatsHeaders(msg.headers),
    };
  }

  private async logStatus(): Promise<void> {
    const log = this.options.log.child({ nats: this.options.name });
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
          this.connected = false;
          log.warn({ server: status.server }, 'NATS disconnected');
          break;
        case 'reconnect':
          this.connected = true;
          log.info({ server: status.server }, 'NATS reconnected');
          break;
        case 'ldm':
          log.warn({ server: status.server }, 'NATS server entering lame duck mode');
          break;
        case 'staleConnection':
          log.warn('NATS connection stale');
          break;
        case 'slowConsumer':
          log.warn({ subject: status.sub.getSubject(), pending: status.pending }, 'NATS slow consumer');
          break;
        case 'error':
          log.error({ err: status.error }, 'NATS server error');
          break;
        default:
          break;
      }
    }
  }

  private assertOpen(subject: string): void {
    if (this.closing || this.nc.isClosed()) throw new BusNoRespondersError(subject);
  }
}
