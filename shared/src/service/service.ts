import { randomUUID } from 'node:crypto';
import { serveRpc } from '../bus/rpc';
import type { Bus, Subscription } from '../bus/types';
import { HEALTH, type ServiceName } from '../contracts/subjects';
import type { Sql } from '../db/index';
import type { Logger } from '../log';

/** What every service is built from, in either mode. */
export interface ServiceDeps {
  bus: Bus;
  sql: Sql;
  log: Logger;
}

/**
 * A service in two phases: creating it registers its bus handlers and durable consumers;
 * `start()` then launches background work (outbox relays, timers). The composition root creates
 * every service before starting any, so no event is published before its consumers exist.
 */
export interface ServiceHandle {
  readonly name: ServiceName;
  start(): Promise<void>;
  /** Stops taking work, lets in-flight work finish, stops background work. */
  stop(): Promise<void>;
}

/** Answers `<service>.health` with the service's own view: the bus reached it, can it reach its database? */
export function serveHealth(deps: ServiceDeps, name: ServiceName): Subscription {
  const instance = `${name}-${randomUUID().slice(0, 8)}`;
  const started = Date.now();
  return serveRpc(
    deps.bus,
    HEALTH[name],
    async () => {
      const database = await deps.sql`SELECT 1`.then(
        () => 'ok' as const,
        () => 'failing' as const,
      );
      return {
        service: name,
        status: database === 'ok' ? ('ok' as const) : ('degraded' as const),
        instance,
        uptime_seconds: Math.round((Date.now() - started) / 1000),
        checks: { database },
      };
    },
    { queue: name, log: deps.log },
  );
}

/** Unsubscribes everything a service registered, letting in-flight handlers finish. */
export async function unsubscribeAll(subscriptions: Subscription[]): Promise<void> {
  await Promise.allSettled(subscriptions.map((s) => s.unsubscribe()));
}
