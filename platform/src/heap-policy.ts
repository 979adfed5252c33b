import { setFlagsFromString } from 'node:v8';
import type { Role } from './components';

/**
 * Bounds how far V8 lets the old generation grow past what survived the last full collection.
 *
 * V8's own policy picks a factor of up to 4x when many short-lived objects are promoted, and a
 * long export promotes nearly every row postgres.js parses: with a live heap of about 46 MB the
 * embedded process grew by 150 MB of garbage waiting for a full collection (BENCHMARKS.md, export).
 * A fixed factor trades a few more full collections for that headroom. `heap_growing_percent` is
 * read each time V8 recomputes its limits, so setting it at start takes effect for the whole run
 * whichever way node was launched (`pnpm start`, the cluster supervisor, a container); 0 leaves
 * V8's own policy.
 */
export function applyHeapGrowthPolicy(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * The all-in-one process holds every component's heap and meets every burst (an export, a fan-out),
 * so its headroom is bounded: with 30% a 100,000-call export grew it by 76 MB where 50% gave
 * 103 MB, after the rest of the benchmark had run in the same process (BENCHMARKS.md). A process of
 * one component keeps V8's own policy: bounding it at 50% lowered the NATS topology's POST rate by
 * about 9% in A/B runs (noisy: 163-261 req/s a run), as every process collected more often, and
 * its memory is its container's limit to set.
 */
export function defaultHeapGrowthPercent(role: Role): number {
  return role === 'all' ? 30 : 0;
}
