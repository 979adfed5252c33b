import type { StreamDefinition } from '../contracts/events';
/**
 * The one bus contract both implementations (NATS, in-process) honour; the same contract
 * test suite runs against each. Payloads are JSON values; headers are lowercase strings.
 */
export type BusHeaders = Record<string, string>;

/** Header names carried across every hop. */
export const HEADER = {
  requestId: 'x-request-id',
  accountId: 'x-account-id',
  traceparent: 'traceparent',
  errorCode: 'voice-error',
} as const;

export interface BusMessage {
  subject: string;
  data: unknown;
  headers: BusHeaders;
}

export interface RequestOptions {
  /** How long to wait for the reply; default is the bus's configured request timeout. */
  timeoutMs?: number;
  headers?: BusHeaders;
  /**
   * 'json': the request resolves to the reply's JSON text (a string, or undefined for a reply
   * without a value), never parsed, for a caller that sends it on as it came. Default 'value'.
   */
  replyAs?: 'value' | 'json';
}

/** A responder returns the reply data, or throws an AppError (anything else becomes INTERNAL). */
export type Responder = (msg: BusMessage) => Promise<unknown>;
export type Listener = (msg: BusMessage) => Promise<void> | void;

export interface Subscription {
  /** Stops receiving; in-flight handlers are allowed to finish. */
  unsubscribe(): Promise<void>;
}

export interface DurableMessage extends BusMessage {
  /** The event id the publisher gave (msgId): consumers dedupe on it. */
  id: string;
  /** 1 on first delivery, then counts redeliveries. */
  deliveryCount: number;
}

// Declared with the stream contracts (contracts/events), which must not depend on the bus.
export type { StreamDefinition };

export interface ConsumeOptions {
  stream: StreamDefinition;
  /** Durable consumer name; replicas using the same name share the work. */
  durable: string;
  /** Subject filters within the stream. */
  subjects: string[];
  /** Resolve = ack; throw = redeliver after `retryDelayMs(deliveryCount)`. */
  handler: (msg: DurableMessage) => Promise<void>;
  /** Most messages in flight at once for this consumer (across replicas on NATS). */
  maxInFlight?: number;
  /** Handler time before the server redelivers elsewhere. */
  ackWaitMs?: number;
  retryDelayMs?: (deliveryCount: number) => number;
}

export interface PublishDurableOptions {
  /** Unique event id: the server drops a second publish with the same id. */
  msgId: string;
  headers?: BusHeaders;
}

export type BusKind = 'nats' | 'in-process';

/** The bus's own view of its connection; see `Bus.status`. */
export type BusStatus = 'connected' | 'reconnecting' | 'closed';

export interface Bus {
  readonly kind: BusKind;
  /** Request/reply. Throws BusTimeoutError, BusNoRespondersError, or the responder's AppError. */
  request(subject: string, data: unknown, options?: RequestOptions): Promise<unknown>;
  /** Answers requests on `subject`; members of one queue group share the load. */
  respond(subject: string, responder: Responder, options?: { queue?: string }): Subscription;
  /** Fire-and-forget publish (core, not durable). */
  publish(subject: string, data: unknown, headers?: BusHeaders): Promise<void>;
  /** Subject may contain `*` and `>` wildcards. */
  subscribe(subject: string, listener: Listener, options?: { queue?: string }): Subscription;
  /** Creates or updates a durable stream; idempotent. */
  ensureStream(stream: StreamDefinition): Promise<void>;
  /**
   * Publishes an event that must not be lost. Resolves once the bus has taken responsibility for it
   * (NATS: JetStream stored it; in-process: every durable consumer acked it). Also reaches plain
   * subscribers of the subject.
   */
  publishDurable(subject: string, data: unknown, options: PublishDurableOptions): Promise<void>;
  /** At-least-once consumption with ack on success and delayed redelivery on failure. */
  consume(options: ConsumeOptions): Promise<Subscription>;
  /** Drains subscriptions and closes; in-flight handlers finish first. */
  close(): Promise<void>;
  /**
   * Cheap and local (no round trip), for health reports: `reconnecting` while the NATS server is
   * unreachable (requests and durable publishes then fail at once with BusNoRespondersError),
   * `closed` once close() began. The in-process bus is `connected` until closed.
   */
  status?(): BusStatus;
  /**
   * Changes whenever the connection to the server was lost (NATS; the in-process bus never loses
   * one). Core messages published meanwhile were not delivered: a subscriber that keeps state
   * from them (a cache invalidated by notices) drops it when this changes.
   */
  connectionEpoch?(): number;
}
