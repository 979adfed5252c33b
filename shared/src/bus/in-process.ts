import type { Logger } from '../log';
import { BusNoRespondersError, BusTimeoutError } from './errors';
import { subjectMatches } from './subject-match';
import type {
  Bus,
  BusHeaders,
  BusMessage,
  ConsumeOptions,
  DurableMessage,
  Listener,
  PublishDurableOptions,
  RequestOptions,
  Responder,
  StreamDefinition,
  Subscription,
} from './types';
import { HEADER } from './types';
import { decode, decodeReply, encode, encodeFailure, encodeSuccess } from './wire';

interface Handler {
  subject: string;
  queue: string | undefined;
  /** Responders answer requests; plain listeners only see publishes. */
  responds: boolean;
  run: (msg: BusMessage, reply?: (body: string) => void) => Promise<void>;
}

interface ConsumerReplica {
  options: ConsumeOptions;
  inFlight: number;
}

interface ConsumerGroup {
  stream: string;
  durable: string;
  subjects: string[];
  replicas: ConsumerReplica[];
  next: number;
  backlog: Delivery[];
}

interface Delivery {
  message: DurableMessage;
  done: () => void;
}

interface PendingEvent {
  promise: Promise<void>;
  seenAt: number;
}

/** How long a msgId is remembered for duplicate detection (JetStream's default window). */
const DUPLICATE_WINDOW_MS = 120_000;

/**
 * The embedded default's bus: same semantics as NATS within one process. Payloads go through
 * JSON both ways so nothing passes here that would not pass over the wire.
 *
 * Durable events resolve only once every durable consumer of the stream has acked them; the
 * outbox relay marks an event sent only then, so a crash at any point leaves it to be re-relayed.
 */
export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Set<Handler>();
  private readonly roundRobin = new Map<string, number>();
  private readonly streams = new Map<string, StreamDefinition>();
  private readonly consumers = new Map<string, ConsumerGroup>();
  private readonly recentEvents = new Map<string, PendingEvent>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: { requestTimeoutMs: number; log: Logger }) {}

  async request(subject: string, data: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.assertOpen();
    const responder = this.pickResponder(subject);
    if (!responder) throw new BusNoRespondersError(subject);
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    let replyBody: string | undefined;
    const work = responder.run(this.message(subject, data, options.headers), (body) => {
      replyBody = body;
    });
    // close() must wait for a responder that is still answering, as it does for every other handler.
    this.track(work);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BusTimeoutError(subject)), timeoutMs);
    });
    try {
      await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
    return decodeReply(subject, replyBody ?? encodeSuccess(null).body);
  }

  respond(subject: string, responder: Responder, options: { queue?: string } = {}): Subscription {
    const log = this.options.log;
    return this.add({
      subject,
      queue: options.queue,
      responds: true,
      run: async (msg, reply) => {
        try {
          const data = await responder(msg);
          reply?.(encodeSuccess(data).body);
        } catch (error) {
          const failure = encodeFailure(error);
          if (failure.errorCode === 'INTERNAL') {
            log.error({ err: error, subject, request_id: msg.headers[HEADER.requestId] }, 'responder failed');
          }
          reply?.(failure.body);
        }
      },
    });
  }

  async publish(subject: string, data: unknown, headers?: BusHeaders): Promise<void> {
    this.assertOpen();
    this.fanOut(this.message(subject, data, headers));
  }

  subscribe(subject: string, listener: Listener, options: { queue?: string } = {}): Subscription {
    const log = this.options.log;
    return this.add({
      subject,
      queue: options.queue,
      responds: false,
      run: async (msg) => {
        try {
          await listener(msg);
        } catch (error) {
          log.error({ err: error, subject: msg.subject }, 'subscriber failed');
        }
      },
    });
  }

  async ensureStream(stream: StreamDefinition): Promise<void> {
    this.streams.set(stream.name, stream);
  }

  publishDurable(subject: string, data: unknown, options: PublishDurableOptions): Promise<void> {
    // Not async (a duplicate must return the first publish's promise), so fail as a rejection.
    if (this.closed) return Promise.reject(new BusNoRespondersError(subject));
    const stream = [...this.streams.values()].find((s) => s.subjects.some((p) => subjectMatches(p, subject)));
    if (!stream) return Promise.reject(new BusNoRespondersError(subject));
    this.forgetOldEvents();
    const key = `${stream.name}\u0000${options.msgId}`;
    const known = this.recentEvents.get(key);
    if (known) return known.promise;
    const message = this.message(subject, data, options.headers);
    const groups = [...this.consumers.values()].filter(
      (g) => g.stream === stream.name && g.subjects.some((p) => subjectMatches(p, subject)),
    );
    const promise = Promise.all(
      groups.map(
        (group) =>
          new Promise<void>((done) => {
            this.enqueue(group, { message: { ...message, id: options.msgId, deliveryCount: 1 }, done });
          }),
      ),
    ).then(() => undefined);
    this.recentEvents.set(key, { promise, seenAt: Date.now() });
    this.fanOut(message);
    return promise;
  }

  async consume(options: ConsumeOptions): Promise<Subscription> {
    this.assertOpen();
    await this.ensureStream(options.stream);
    const key = `${options.stream.name}\u0000${options.durable}`;
    let group = this.consumers.get(key);
    if (!group) {
      group = {
        stream: options.stream.name,
        durable: options.durable,
        subjects: options.subjects,
        replicas: [],
        next: 0,
        backlog: [],
      };
      this.consumers.set(key, group);
    }
    const replica: ConsumerReplica = { options, inFlight: 0 };
    group.replicas.push(replica);
    this.drain(group);
    const owner = group;
    return {
      unsubscribe: async () => {
        owner.replicas = owner.replicas.filter((r) => r !== replica);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.handlers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private enqueue(group: ConsumerGroup, delivery: Delivery): void {
    group.backlog.push(delivery);
    this.drain(group);
  }

  /** Hands backlog to replicas round-robin, respecting each replica's in-flight limit. */
  private drain(group: ConsumerGroup): void {
    while (group.backlog.length > 0 && !this.closed) {
      const replica = this.freeReplica(group);
      if (!replica) return;
      const delivery = group.backlog.shift()!;
      replica.inFlight++;
      const run = this.deliver(group, replica, delivery);
      this.track(run);
    }
  }

  private freeReplica(group: ConsumerGroup): ConsumerReplica | undefined {
    for (let i = 0; i < group.replicas.length; i++) {
      const index = (group.next + i) % group.replicas.length;
      const replica = group.replicas[index]!;
      if (replica.inFlight < (replica.options.maxInFlight ?? 256)) {
        group.next = index + 1;
        return replica;
      }
    }
    return undefined;
  }

  private async deliver(group: ConsumerGroup, replica: ConsumerReplica, delivery: Delivery): Promise<void> {
    const message = { ...delivery.message, data: decode(encode(delivery.message.data)) };
    try {
      await replica.options.handler(message);
      delivery.done();
    } catch (error) {
      const count = delivery.message.deliveryCount;
      const delay = replica.options.retryDelayMs?.(count) ?? Math.min(30_000, 250 * 2 ** (count - 1));
      this.options.log.warn(
        { err: error, subject: message.subject, event_id: message.id, delivery: count, retry_in_ms: delay },
        'durable handler failed; redelivering',
      );
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.enqueue(group, { ...delivery, message: { ...delivery.message, deliveryCount: count + 1 } });
      }, delay);
      this.timers.add(timer);
    } finally {
      replica.inFlight--;
      this.drain(group);
    }
  }

  private fanOut(message: BusMessage): void {
    const targets = this.matching(message.subject);
    const seenQueues = new Set<string>();
    for (const handler of targets) {
      if (handler.queue) {
        if (seenQueues.has(handler.queue)) continue;
        seenQueues.add(handler.queue);
        const chosen = this.pickFromQueue(message.subject, handler.queue, targets);
        this.track(Promise.resolve().then(() => chosen.run(this.copy(message))));
      } else {
        this.track(Promise.resolve().then(() => handler.run(this.copy(message))));
      }
    }
  }

  private pickResponder(subject: string): Handler | undefined {
    const targets = this.matching(subject).filter((h) => h.responds);
    const first = targets[0];
    if (!first) return undefined;
    return first.queue ? this.pickFromQueue(subject, first.queue, targets) : first;
  }

  private pickFromQueue(subject: string, queue: string, targets: Handler[]): Handler {
    const members = targets.filter((h) => h.queue === queue);
    const key = `${subject}\u0000${queue}`;
    const index = (this.roundRobin.get(key) ?? 0) % members.length;
    this.roundRobin.set(key, index + 1);
    return members[index]!;
  }

  private matching(subject: string): Handler[] {
    return [...this.handlers].filter((h) => subjectMatches(h.subject, subject));
  }

  private add(handler: Handler): Subscription {
    this.assertOpen();
    this.handlers.add(handler);
    return {
      unsubscribe: async () => {
        this.handlers.delete(handler);
      },
    };
  }

  private message(subject: string, data: unknown, headers?: BusHeaders): BusMessage {
    return { subject, data: decode(encode(data)), headers: { ...headers } };
  }

  private copy(message: BusMessage): BusMessage {
    return { subject: message.subject, data: decode(encode(message.data)), headers: { ...message.headers } };
  }

  private track<T>(promise: Promise<T>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private forgetOldEvents(): void {
    const cutoff = Date.now() - DUPLICATE_WINDOW_MS;
    for (const [key, event] of this.recentEvents) {
      if (event.seenAt >= cutoff) break;
      this.recentEvents.delete(key);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new BusNoRespondersError('bus closed');
  }
}
