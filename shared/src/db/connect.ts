import postgres from 'postgres';
import { AppError } from '../errors';
import type { Logger } from '../log';

/** A postgres.js pool as every service uses it (no custom types: int8 stays a string, timestamps are Dates). */
export type Sql = postgres.Sql;
/** The handle passed to `sql.begin` callbacks; write outbox rows and state changes through it. */
export type TransactionSql = postgres.TransactionSql;

export interface CreateSqlOptions {
  /** Pool size; keep it modest (postgres.js has a known race under heavy pipelined `begin`). */
  max?: number;
  log: Logger;
  /** Shown in pg_stat_activity, so an operator can tell which service holds a connection. */
  applicationName: string;
  /** Seconds to establish a TCP+auth connection. */
  connectTimeoutSeconds?: number;
  /** Seconds before an idle pooled connection is closed. */
  idleTimeoutSeconds?: number;
  /**
   * Commits return before their WAL reaches the disk (synchronous_commit off): for bookkeeping a
   * crash of the database may lose without harm (rate-limit counts, outbox claims and deletions of
   * published rows), so it does not wait for, or queue behind, the disk flushes of the writes that
   * must be durable.
   */
  relaxedCommit?: boolean;
}

/** Identifiers we interpolate into SQL text (schema names) must match this. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`invalid SQL identifier: ${JSON.stringify(name)}`);
  return name;
}

/** Longest wait before a pool tries the database again after failed connection attempts, in seconds. */
export const MAX_RECONNECT_DELAY_SECONDS = 2;

/**
 * postgres.js waits up to 20 s between connection attempts once several failed, so a database back
 * after a restart stayed unused for that long; capped here, with jitter so pools do not retry in step.
 */
export function reconnectDelaySeconds(failures: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** failures / 100, MAX_RECONNECT_DELAY_SECONDS);
}

export function createSql(url: string, options: CreateSqlOptions): Sql {
  const { log } = options;
  return postgres(url, {
    max: options.max ?? 10,
    backoff: reconnectDelaySeconds,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    idle_timeout: options.idleTimeoutSeconds ?? 30,
    // Server notices ("relation already exists, skipping" and the like) are noise at info level.
    onnotice: (notice) => log.debug({ notice: notice.message }, 'postgres notice'),
    connection: {
      application_name: options.applicationName,
      ...(options.relaxedCommit ? { synchronous_commit: 'off' } : {}),
    },
  });
}

/**
 * Bounds a database call: rejects with SERVICE_TIMEOUT (504) once `ms` pass. postgres.js
 * `connect_timeout` covers opening a connection but not waiting for a free pool slot, so a
 * saturated pool would otherwise hang a request forever. The underlying query keeps running;
 * only the caller stops waiting. (To wait at most `ms` without failing, as shutdown does, use
 * `waitAtMost` from the bus.)
 */
export async function withDeadline<T>(promise: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The client-facing detail stays generic; what timed out goes to the cause, for logs.
      reject(new AppError('SERVICE_TIMEOUT', undefined, { cause: new Error(`${what} exceeded ${ms} ms`) }));
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
