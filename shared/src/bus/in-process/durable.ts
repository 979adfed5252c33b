import type { Logger } from '../../log';
import { DEFAULT_MAX_IN_FLIGHT, duplicateWindowMs, retryDelayFor } from '../durable-policy';
import { BusNoRespondersError } from '../errors';
import type { SentMessage } from '../in-process';
import { streamStores, subjectMatches } from '../subject-match';
import type { ConsumeOptions, DurableMessage, StreamDefinition, Subscription } from '../types';
import { decode } from '../wire';

/** An event as stored: its text, decoded afresh for each delivery as NATS does. */
interface StoredMessage extends SentMessage {
  id: string;
  deliveryCount: number;
}

/** Events kept per stream for consumers that register later, unless the bus is told otherwise. */
export const DEFAULT_RETAINED_PER_STREAM = 10_000;

interface StoredEvent {
  message: StoredMessage;
  storedAt: number;
  /** Some consumer group received it; dropping it unreceived loses it, which is worth a warning. */
  received: boolean;
}

interface Stream {
  definition: StreamDefinition;
  /**
   * Oldest first from `head`; trimmed by the stream's max age and by count. Dropping advances
   * `head` (the array is compacted now and then): splicing the front of a full stream on every
   * publish moved all 10,000 kept events each time.
   */
  events: StoredEvent[];
  head: number;
  /** msgId → when first seen and the first publish's outcome, for duplicate detection. */
  recent: Map<string, { seenAt: number; outcome: Promise<void> }>;
}

interface Replica {
  options: ConsumeOptions;
  inFlight: number;
}

interface Delivery {
  message: StoredMessage;
  /** Called once a replica acked it. */
  acked: () => void;
}

interface ConsumerGroup {
  stream: string;
  subjects: string[];
  replicas: Replica[];
  next: number;
  backlog: Delivery[];
}

export interface DurableDeps {
  log: Logger;
  /** Registers work close() must wait for. */
  track: (work: Promise<unknown>) => void;
  /** Events kept per stream for consumers that register later. */
  retainedPerStream?: number;
}

/**
 * The in-process bus's JetStream: streams, durable consumer groups and their delivery.
 *
 * Like JetStream (limits retention, deliver policy all), a stream keeps every event for its max
 * age (and here at most `retainedPerStream` of them, oldest dropped first), and a durable consumer
 * that registers later is handed every kept event that matches its filter. A durable keeps its
 * position while it has no replica; a new replica of the same name resumes it.
 *
 * publishDurable resolves once every consumer group with a replica registered at publish time
 * acked the event (at once when there is none; a durable without replicas keeps it for later). The outbox relay marks an event sent only then, so in embedded mode
 * a crash at any point leaves it to be re-relayed.
 *
 * The one difference from NATS: the streams are memory only. A crash loses the events no consumer
 * had acked, but only events whose outbox rows are already marked published are lost that way,
 * and a row is marked published only after every consumer registered at publish time acked it.
 * The platform creates every service (registering every consumer, synchronously here) before it
 * starts any relay, so in practice that is every consumer.
 */
export class DurableStreams {
  private readonly streams = new Map<string, Stream>();
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Rejections of durable publishes still waiting for acks; close() fails them. */
  private readonly waiting = new Set<(error: Error) => void>();
  private readonly retainedPerStream: number;
  private closed = false;

  constructor(private readonly deps: DurableDeps) {
    this.retainedPerStream = deps.retainedPerStream ?? DEFAULT_RETAINED_PER_STREAM;
  }

  ensureStream(definition: StreamDefinition): void {
    const existing = this.streams.get(definition.name);
    if (existing) existing.definition = definition;
    else this.streams.set(definition.name, { definition, events: [], head: 0, recent: new Map() });
  }

  /** True when a declared stream stores `subject`. */
  accepts(subject: string): boolean {
    return this.streamOf(subject) !== undefined;
  }

  /** `message` is already a private copy. Not async: a duplicate returns the first publish's promise. */
  publish(message: SentMessage, msgId: string): Promise<void> {
    const stream = this.streamOf(message.subject);
    if (!stream) return Promise.reject(new BusNoRespondersError(message.subject));
    const now = Date.now();
    this.forgetOldIds(stream, now);
    const known = stream.recent.get(msgId);
    if (known) return known.outcome;

    const durable: StoredMessage = { ...message, id: msgId, deliveryCount: 1 };
    const groups = this.groupsOf(stream.definition.name).filter((g) => matches(g, message.subject));
    stream.events.push({ message: durable, storedAt: now, received: groups.length > 0 });
    this.trim(stream, now);
    // Only groups with a replica now hold the publish up; the others keep the event in their
    // backlog for their next replica, as a durable without subscribers does on NATS.
    const live = groups.filter((g) => g.replicas.length > 0);
    for (const group of groups)
      if (group.replicas.length === 0) group.backlog.push({ message: durable, acked() {} });
    const outcome = new Promise<void>((resolve, reject) => {
      if (live.length === 0) return resolve();
      this.waiting.add(reject);
      let pending = live.length;
      const acked = () => {
        if (--pending > 0) return;
        this.waiting.delete(reject);
        resolve();
      };
      for (const group of live) this.enqueue(group, { message: durable, acked });
    });
    stream.recent.set(msgId, { seenAt: now, outcome });
    return outcome;
  }

  /** Registers the replica before returning, so events published from now on reach it. */
  consume(options: ConsumeOptions): Subscription {
    this.ensureStream(options.stream);
    const key = `${options.stream.name}\u0000${options.durable}`;
    let group = this.groups.get(key);
    if (!group) {
      group = { stream: options.stream.name, subjects: options.subjects, replicas: [], next: 0, backlog: [] };
      this.groups.set(key, group);
      this.replay(group);
    }
    const replica: Replica = { options, inFlight: 0 };
    group.replicas.push(replica);
    this.drain(group);
    const owner = group;
    return {
      unsubscribe: async () => {
        owner.replicas = owner.replicas.filter((r) => r !== replica);
      },
    };
  }

  /** Stops redeliveries. Call finish() once in-flight handlers settled. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Fails the publishes still waiting for an ack that will now never come. */
  finish(): void {
    for (const reject of this.waiting) reject(new BusNoRespondersError('bus closed'));
    this.waiting.clear();
  }

  /** A new durable starts at the beginning of the stream (deliver policy all). */
  private replay(group: ConsumerGroup): void {
    const stream = this.streams.get(group.stream)!;
    this.trim(stream, Date.now());
    for (let i = stream.head; i < stream.events.length; i++) {
      const event = stream.events[i]!;
      if (!matches(group, event.message.subject)) continue;
      event.received = true;
      group.backlog.push({ message: event.message, acked: () => {} });
    }
  }

  private streamOf(subject: string): Stream | undefined {
    for (const stream of this.streams.values()) {
      if (streamStores(stream.definition, subject)) return stream;
    }
    return undefined;
  }

  private groupsOf(stream: string): ConsumerGroup[] {
    return [...this.groups.values()].filter((g) => g.stream === stream);
  }

  private enqueue(group: ConsumerGroup, delivery: Delivery): void {
    group.backlog.push(delivery);
    this.drain(group);
  }

  /** Hands backlog to replicas round-robin, respecting each replica's in-flight limit. */
  private drain(group: ConsumerGroup): void {
    while (group.backlog.length > 0 && !this.closed) {
      const replica = freeReplica(group);
      if (!replica) return;
      const delivery = group.backlog.shift()!;
      replica.inFlight++;
      this.deps.track(this.deliver(group, replica, delivery));
    }
  }

  private async deliver(group: ConsumerGroup, replica: Replica, delivery: Delivery): Promise<void> {
    // Each delivery gets its own copy, as each NATS delivery is decoded afresh.
    const stored = delivery.message;
    const message: DurableMessage = {
      subject: stored.subject,
      data: decode(stored.text),
      headers: { ...stored.headers },
      id: stored.id,
      deliveryCount: stored.deliveryCount,
    };
    try {
      await replica.options.handler(message);
      delivery.acked();
    } catch (error) {
      const count = delivery.message.deliveryCount;
      const delay = retryDelayFor(replica.options, count);
      this.deps.log.warn(
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

  /** Drops events past the stream's max age, then the oldest beyond the count limit. */
  private trim(stream: Stream, now: number): void {
    const { maxAgeMs, name } = stream.definition;
    const cutoff = maxAgeMs > 0 ? now - maxAgeMs : Number.NEGATIVE_INFINITY;
    const { events } = stream;
    let end = stream.head;
    while (end < events.length && events[end]!.storedAt < cutoff) end++;
    end = Math.max(end, events.length - this.retainedPerStream);
    if (end <= stream.head) return;
    let unreceived = 0;
    for (let i = stream.head; i < end; i++) {
      if (!events[i]!.received) unreceived++;
      events[i] = undefined as never; // released now; compacted below
    }
    stream.head = end;
    if (stream.head > 1024 && stream.head * 2 > events.length) {
      stream.events = events.slice(stream.head);
      stream.head = 0;
    }
    if (unreceived > 0) {
      this.deps.log.warn(
        {
          stream: name,
          dropped: unreceived,
          retained: stream.events.length - stream.head,
          limit: this.retainedPerStream,
        },
        'in-process stream dropped events no consumer had received (max age or count reached)',
      );
    }
  }

  private forgetOldIds(stream: Stream, now: number): void {
    const cutoff = now - duplicateWindowMs(stream.definition);
    for (const [id, seen] of stream.recent) {
      if (seen.seenAt >= cutoff) break; // insertion order is time order
      stream.recent.delete(id);
    }
  }
}

function matches(group: ConsumerGroup, subject: string): boolean {
  return group.subjects.some((p) => subjectMatches(p, subject));
}

function freeReplica(group: ConsumerGroup): Replica | undefined {
  for (let i = 0; i < group.replicas.length; i++) {
    const index = (group.next + i) % group.replicas.length;
    const replica = group.replicas[index]!;
    if (replica.inFlight < (replica.options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT)) {
      group.next = index + 1;
      return replica;
    }
  }
  return undefined;
}
