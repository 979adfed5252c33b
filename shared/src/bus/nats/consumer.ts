import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../../log';
import { DEFAULT_MAX_IN_FLIGHT, retryDelayFor } from '../durable-policy';
import type { ConsumeOptions, DurableMessage, Subscription } from '../types';
import { decode } from '../wire';
import { fromNatsHeaders, MSG_ID_HEADER } from './headers';
import type { InFlight } from './in-flight';
import { Slots } from './in-flight';
import type { Naming } from './naming';
import { ensureConsumer } from './streams';

export interface ConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  naming: Naming;
  log: Logger;
  inFlight: InFlight;
  /** Re-declares the stream; called before recreating a consumer that went missing. */
  ensureStream: () => Promise<void>;
}

const RESTART_DELAY_MS = [100, 500, 1_000, 2_000, 5_000];

/**
 * One replica of a durable pull consumer. The consume() loop is supervised: when it ends or
 * fails for any reason other than unsubscribe/close, the stream and consumer are declared
 * again and the loop restarts, so a deleted consumer or a JetStream outage heals itself.
 */
export class DurableConsumer implements Subscription {
  private stopped = false;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  private readonly slots: Slots;
  private readonly maxInFlight: number;
  private readonly stream: string;
  private readonly durable: string;
  private readonly log: Logger;

  constructor(
    private readonly deps: ConsumerDeps,
    private readonly options: ConsumeOptions,
  ) {
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.slots = new Slots(this.maxInFlight);
    this.stream = deps.naming.stream(options.stream.name);
    this.durable = deps.naming.durable(options.durable);
    this.log = deps.log.child({ stream: options.stream.name, durable: options.durable });
  }

  /** Declares the consumer (errors reach the caller), then starts the supervised loop. */
  async start(): Promise<void> {
    await ensureConsumer(this.deps.jsm, this.deps.naming, this.options);
    this.loop = this.supervise();
  }

  async unsubscribe(): Promise<void> {
    if (this.stopped) return this.loop;
    this.stopped = true;
    this.wake?.();
    // stop(), not close(): close() resolves only once the iterator is read to its end, which
    // never happens if the loop is between consume() and its first read. The loop itself ends.
    this.messages?.stop();
    await this.loop;
  }

  private async supervise(): Promise<void> {
    let restarts = 0;
    while (!this.stopped) {
      try {
        if (restarts > 0) {
          await this.deps.ensureStream();
          await ensureConsumer(this.deps.jsm, this.deps.naming, this.options);
        }
        await this.run();
        if (this.stopped) return;
        this.log.warn('durable consumer loop ended; restarting');
      } catch (error) {
        if (this.stopped) return;
        this.log.warn({ err: error }, 'durable consumer loop failed; restarting');
      }
      await this.pause(RESTART_DELAY_MS[Math.min(restarts, RESTART_DELAY_MS.length - 1)]!);
      restarts++;
    }
  }

  private async run(): Promise<void> {
    const consumer = await this.deps.js.consumers.get(this.stream, this.durable);
    // Missing stream or consumer ends the loop, so the supervisor recreates them.
    const messages = await consumer.consume({
      max_messages: this.maxInFlight,
      abort_on_missing_resource: true,
    });
    this.messages = messages;
    if (this.stopped) messages.stop();
    for await (const msg of messages) {
      await this.slots.acquire();
      if (this.stopped) {
        // Already fetched but not started: hand it back at once rather than after ack_wait.
        this.slots.release();
        msg.nak();
        continue;
      }
      this.deps.inFlight.run(() => this.handle(msg).finally(() => this.slots.release()));
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    let message: DurableMessage;
    try {
      message = {
        subject: this.deps.naming.unprefixSubject(msg.subject),
        data: decode(msg.string()),
        headers: fromNatsHeaders(msg.headers),
        id: msg.headers?.get(MSG_ID_HEADER) || `${msg.info.stream}:${msg.seq}`,
        deliveryCount: msg.info.deliveryCount,
      };
    } catch (error) {
      // A body that is not JSON can never succeed; retrying it forever would only block.
      this.log.error(
        { err: error, subject: msg.subject, seq: msg.seq },
        'undecodable durable message dropped',
      );
      msg.term('undecodable');
      return;
    }
    try {
      await this.options.handler(message);
      msg.ack();
    } catch (error) {
      const count = message.deliveryCount;
      // A plain nak ignores the consumer's backoff list: the delay must be given here.
      const delay = retryDelayFor(this.options, count);
      this.log.warn(
        { err: error, subject: message.subject, event_id: message.id, delivery: count, retry_in_ms: delay },
        'durable handler failed; redelivering',
      );
      msg.nak(delay);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
