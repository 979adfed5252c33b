import type { ConsumeOptions, StreamDefinition } from './types';

/**
 * Durable-delivery defaults shared by both buses, so the in-process bus behaves as JetStream is
 * configured to: one place for each number.
 */

/** How long a msgId is remembered for duplicate detection: JetStream's default window. */
export const DUPLICATE_WINDOW_MS = 120_000;

/** Most unacked messages one consumer has at once, unless it asks for another limit. */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** The server refuses a duplicate window longer than the stream's max age (0 = unlimited age). */
export function duplicateWindowMs(stream: StreamDefinition): number {
  return stream.maxAgeMs > 0 ? Math.min(DUPLICATE_WINDOW_MS, stream.maxAgeMs) : DUPLICATE_WINDOW_MS;
}

/** Exponential backoff after a failed handler: 250 ms, 500 ms, 1 s, ... capped at 30 s. */
export function defaultRetryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 250 * 2 ** (deliveryCount - 1));
}

/** The redelivery delay for a message that failed on its `deliveryCount`th delivery. */
export function retryDelayFor(options: ConsumeOptions, deliveryCount: number): number {
  return (options.retryDelayMs ?? defaultRetryDelayMs)(deliveryCount);
}
