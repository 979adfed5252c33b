import type { Logger } from '../log';
import { BusNoRespondersError, BusTimeoutError } from './errors';
import { answerRequest, runListener } from './handlers';
import { DurableStreams } from './in-process/durable';
import { subjectMatches } from './subject-match';
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
import { decodeReply, decodeReplyJson, encode, encodeSuccess, receivedMessage } from './wire';

/** A message as published: encoded once; each recipient decodes its own copy (receivedMessage). */
export interface SentMessage {
  subject: string;
  text: string;
  headers: BusHeaders;
}

interface Handler {
  subject: string;
  queue: string | undefined;
  /** Responders answer requests; plain listeners only see publishes. */
  responds: boolean;
  run: (msg: BusMessage, reply?: (body: string) => void) => Promise<void>;
}

export interface InProcessBusOptions {
  requestTimeoutMs: number;
  log: Logger;
  /** Durable events kept per stream for consumers that register later (default 10 000). */
  retainedPerStream?: number;
}

/**
 * The embedded default's bus: same semantics as NATS within one process (one contract suite runs
 * against both). Payloads go through JSON both ways so nothing passes here that would not pass
 * over the wire. Durable streams and consumers live in `DurableStreams`, which says where they
 * differ from JetStream (memory only; publishDurable waits for the consumers' acks).
 */
export class InProcessBus implements Bus {
  readonly kind = 'in-process' as const;
  private readonly handlers = new Set<Handler>();
  private readonly roundRobin = new Map<string, number>();
  /** The responders of each request subject seen, until a handler comes or goes. */
  private readonly responders = new Map<string, Handler[]>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly durable: DurableStreams;
  private closed = false;

  constructor(private readonly options: InProcessBusOptions) {
    this.durable = new DurableStreams({
      log: options.log,
      track: (work) => this.track(work),
      ...(options.retainedPerStream === undefined ? {} : { retainedPerStream: options.retainedPerStream }),
    });
  }

  status(): BusStatus {
    return this.closed ? 'closed' : 'connected';
  }

  async request(subject: string, data: unknown, options: RequestOptions = {}): Promise<unknown> {
    this.assertOpen();
    const responder = this.pickResponder(subject);
    if (!responder) throw new BusNoRespondersError(subject);
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    let replyBody: string | undefined;
    const work = responder.run(this.received(this.message(subject, data, options.headers)), (body) => {
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
    const body = replyBody ?? encodeSuccess(null).body;
    return options.replyAs === 'json' ? decodeReplyJson(subject, body) : decodeReply(subject, body);
  }

  respond(subject: string, responder: Responder, options: { queue?: string } = {}): Subscription {
    return this.add({
      subject,
      queue: options.queue,
      responds: true,
      run: async (msg, reply) => {
        const answer = await answerRequest(responder, msg, subject, this.options.log);
        reply?.(answer.body);
      },
    });
  }

  async publish(subject: string, data: unknown, headers?: BusHeaders): Promise<void> {
    this.assertOpen();
    this.fanOut(this.message(subject, data, headers));
  }

  subscribe(subject: string, listener: Listener, options: { queue?: string } = {}): Subscription {
    return this.add({
      subject,
      queue: options.queue,
      responds: false,
      run: (msg) => runListener(listener, msg, this.options.log),
    });
  }

  async ensureStream(stream: StreamDefinition): Promise<void> {
    this.assertOpen();
    this.durable.ensureStream(stream);
  }

  publishDurable(subject: string, data: unknown, options: PublishDurableOptions): Promise<void> {
    // Not async (a duplicate must return the first publish's promise), so fail as a rejection.
    if (this.closed) return Promise.reject(new BusNoRespondersError(subject));
    const message = this.message(subject, data, options.headers);
    const outcome = this.durable.publish(message, options.msgId);
    // Plain subscribers see every publish, duplicates included, as core NATS subscribers do.
    if (this.durable.accepts(subject)) this.fanOut(message);
    return outcome;
  }

  /** Registers the consumer synchronously, before the returned promise settles. */
  async consume(options: ConsumeOptions): Promise<Subscription> {
    this.assertOpen();
    return this.durable.consume(options);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.durable.close();
    this.handlers.clear();
    this.responders.clear();
    await Promise.allSettled([...this.inFlight]);
    this.durable.finish();
  }

  private fanOut(message: SentMessage): void {
    const targets = this.matching(message.subject);
    const seenQueues = new Set<string>();
    for (const handler of targets) {
      if (handler.queue) {
        if (seenQueues.has(handler.queue)) continue;
        seenQueues.add(handler.queue);
        const chosen = this.pickFromQueue(message.subject, handler.queue, targets);
        this.track(Promise.resolve().then(() => chosen.run(this.received(message))));
      } else {
        this.track(Promise.resolve().then(() => handler.run(this.received(message))));
      }
    }
  }

  private pickResponder(subject: string): Handler | undefined {
    let targets = this.responders.get(subject);
    if (!targets) {
      targets = this.matching(subject).filter((h) => h.responds);
      // Request subjects are the contracts' names, a few dozen; the bound is only a safety net.
      if (this.responders.size >= 1000) this.responders.clear();
      this.responders.set(subject, targets);
    }
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
    this.responders.clear();
    return {
      unsubscribe: async () => {
        this.handlers.delete(handler);
        this.responders.clear();
      },
    };
  }

  /** Encoded at once: what the publisher changes afterwards is not what was sent. */
  private message(subject: string, data: unknown, headers?: BusHeaders): SentMessage {
    return { subject, text: encode(data), headers: { ...headers } };
  }

  private received(message: SentMessage): BusMessage {
    return receivedMessage(message.subject, message.text, { ...message.headers });
  }

  private track(promise: Promise<unknown>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private assertOpen(): void {
    if (this.closed) throw new BusNoRespondersError('bus closed');
  }
}
