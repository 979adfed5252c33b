import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamManager,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEFAULT_MAX_IN_FLIGHT, duplicateWindowMs } from '../durable-policy';
import type { ConsumeOptions, StreamDefinition } from '../types';
import type { Naming } from './naming';

const DEFAULT_ACK_WAIT_MS = 30_000;

/** "stream name already in use with a different configuration" */
const STREAM_NAME_EXISTS = 10058;
/** "consumer name already in use" (servers before 2.10) and "consumer already exists" (2.10+). */
const CONSUMER_EXISTS = new Set([10013, 10148]);

function apiErrorCode(error: unknown): number | undefined {
  return error instanceof JetStreamApiError ? error.code : undefined;
}

export function streamConfig(
  naming: Naming,
  stream: StreamDefinition,
): Partial<StreamConfig> & { name: string } {
  return {
    name: naming.stream(stream.name),
    subjects: stream.subjects.map((s) => naming.subject(s)),
    max_age: nanos(stream.maxAgeMs),
    duplicate_window: nanos(duplicateWindowMs(stream)),
    storage: StorageType.File,
  };
}

/**
 * Create, or update when it exists with another configuration. The server answers an
 * identical create with success, so concurrent callers with the same definition all succeed.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  naming: Naming,
  stream: StreamDefinition,
): Promise<void> {
  const config = streamConfig(naming, stream);
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (apiErrorCode(error) !== STREAM_NAME_EXISTS) throw error;
    const { name, storage: _fixedAtCreation, ...update } = config;
    await jsm.streams.update(name, update);
  }
}

export function consumerConfig(naming: Naming, options: ConsumeOptions): Partial<ConsumerConfig> {
  const filters = options.subjects.map((s) => naming.subject(s));
  return {
    durable_name: naming.durable(options.durable),
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
    max_ack_pending: options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    // Both keys are always present so an update clears whichever form the old config used;
    // a single filter keeps working on servers older than 2.10 (no filter_subjects there).
    filter_subject: filters.length === 1 ? filters[0] : undefined,
    filter_subjects: filters.length === 1 ? undefined : filters,
  };
}

export async function ensureConsumer(
  jsm: JetStreamManager,
  naming: Naming,
  options: ConsumeOptions,
): Promise<void> {
  const stream = naming.stream(options.stream.name);
  const config = consumerConfig(naming, options);
  try {
    await jsm.consumers.add(stream, config);
  } catch (error) {
    const code = apiErrorCode(error);
    if (code === undefined || !CONSUMER_EXISTS.has(code)) throw error;
    const { durable_name: _name, ack_policy: _ack, deliver_policy: _deliver, ...update } = config;
    await jsm.consumers.update(stream, naming.durable(options.durable), update);
  }
}
