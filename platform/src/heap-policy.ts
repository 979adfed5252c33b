import { setFlagsFromString } from 'node:v8';
import type { Role } from './components';

/**
 * Bounds how far V8 lets the old generation grow past what survived the last full collection.
 *
 * V8's own policy picks a factor of up to 4x when many short-lived objects are promoted, and a
 * long export promotes nearly every row postgres.js parses: the embedded process grew by several
 * times its live heap in garbage waiting for a full collection (docs/performance.md, Memory).
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
 * so its headroom is bounded; 30% kept an export's growth well under what 50% allowed. A process of
 * one component keeps V8's own policy: bounding it lowered the NATS topology's POST rate, as every
 * process collected more often, and its memory is its container's limit to set
 * (docs/performance.md, Memory).
 */
export function defaultHeapGrowthPercent(role: Role): number {
  return role === 'all' ? 30 : 0;
}
