import { randomUUID } from 'node:crypto';
import { serveRpc } from '../bus/rpc';
import type { Bus, Subscription } from '../bus/types';
import type { Config } from '../config';
import { HEALTH, type HealthReply, type ServiceName } from '../contracts/subjects';
import { type Sql, withDeadline } from '../db/connect';
import type { Logger } from '../log';
import type { Metrics } from '../metrics/metrics';

/** What every service is built from, in either mode. */
export interface ServiceDeps {
  bus: Bus;
  sql: Sql;
  /**
   * For writes a database crash may lose without harm (outbox claims and publish marks: a lost
   * one means an event published again, which its id dedupes); absent, `sql` is used.
   */
  bookkeepingSql?: Sql;
  log: Logger;
  /** The parsed operator configuration (README, "Configuration"). */
  config: Config;
  /** The process's metrics registry; absent (a service built by hand in a test), metrics go nowhere. */
  metrics?: Metrics;
}

/**
 * A service's life, stopped in the reverse order of its start:
 *
 * 1. creating it registers its bus handlers and durable consumers;
 * 2. `start()` launches background work (outbox relays, timers);
 * 3. `stopBackground()` stops that background work;
 * 4. `stop()` unsubscribes its handlers and consumers, letting in-flight handlers finish.
 *
 * The composition root creates every service before starting any, so no event is published
 * before its consumers exist, and on the way down stops every service's background work before
 * any service's subscriptions: an outbox relay still finishing a batch needs the consumers (the
 * in-process bus confirms an event only once they acked it). `stop()` alone is complete too: it
 * runs `stopBackground()` first if nobody did. Both are idempotent.
 */
export interface ServiceHandle {
  readonly name: ServiceName;
  start(): Promise<void>;
  stopBackground(): Promise<void>;
  stop(): Promise<void>;
}

/** A piece of background work: started by `start()`, it returns how to stop it. */
export type BackgroundTask = () => Promise<{ stop(): Promise<void> }>;

export interface ServiceParts {
  name: ServiceName;
  /** Handlers and consumers registered at creation (a consume() may still be pending). */
  subscriptions: (Subscription | Promise<Subscription>)[];
  /** Started in order by start(), stopped in reverse order by stopBackground(). */
  background?: BackgroundTask[];
}

/** Builds the ServiceHandle every service returns, with the stop order above. */
export function defineService(parts: ServiceParts): ServiceHandle {
  const running: { stop(): Promise<void> }[] = [];
  let stoppingBackground: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  const stopBackground = () => {
    stoppingBackground ??= (async () => {
      const errors: unknown[] = [];
      for (const task of running.splice(0).reverse()) await task.stop().catch((e: unknown) => errors.push(e));
      if (errors.length > 0)
        throw new AggregateError(errors, `${parts.name}: background work failed to stop`);
    })();
    return stoppingBackground;
  };
  return {
    name: parts.name,
    async start() {
      // Every consumer exists before this service's background work could publish to it.
      await Promise.all(parts.subscriptions);
      for (const task of parts.background ?? []) {
        if (stoppingBackground) return;
        const handle = await task();
        // Stopped while this one was starting: it stops at once instead of outliving the service.
        if (stoppingBackground) return handle.stop();
        running.push(handle);
      }
    },
    stopBackground,
    stop() {
      stopping ??= (async () => {
        const background = await stopBackground().then(
          () => undefined,
          (error: unknown) => error,
        );
        await unsubscribeAll(parts.subscriptions);
        if (background) throw background;
      })();
      return stopping;
    },
  };
}

/** How long a health probe waits for the database before calling it failing. */
export const HEALTH_DATABASE_DEADLINE_MS = 1_000;

/**
 * Answers `<service>.health` with the service's own view: the bus reached it, can it reach its
 * database? `extra` goes into every reply as it is (the call service names its telephony provider).
 */
type HealthExtra = Pick<HealthReply, 'telephony' | 'trunks'>;

export function serveHealth(
  deps: ServiceDeps,
  name: ServiceName,
  /** What the service adds to its answer; a function is asked each time, once the database answered. */
  extra: HealthExtra | (() => Promise<HealthExtra>) = {},
): Subscription {
  const instance = `${name}-${randomUUID().slice(0, 8)}`;
  const started = Date.now();
  return serveRpc(
    deps.bus,
    HEALTH[name],
    async () => {
      // A stalled database (or a saturated pool) must not hang the probe: the asker would only
      // see a timeout, not which component is failing.
      const database = await withDeadline(
        deps.sql`SELECT 1`,
        HEALTH_DATABASE_DEADLINE_MS,
        `${name} health database probe`,
      ).then(
        () => 'ok' as const,
        () => 'failing' as const,
      );
      const more =
        typeof extra !== 'function'
          ? extra
          : database === 'ok'
            ? await withDeadline(extra(), HEALTH_DATABASE_DEADLINE_MS, `${name} health details`).catch(
                () => ({}),
              )
            : {};
      return {
        service: name,
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        instance,
        uptime_seconds: Math.round((Date.now() - started) / 1000),
        checks: { database },
        ...more,
      };
    },
    { queue: name, log: deps.log },
  );
}

/** Unsubscribes everything a service registered, letting in-flight handlers finish. */
export async function unsubscribeAll(subscriptions: (Subscription | Promise<Subscription>)[]): Promise<void> {
  await Promise.allSettled(subscriptions.map(async (s) => (await s).unsubscribe()));
}
