import { join } from 'node:path';
import {
  type Bus,
  type Config,
  createSql,
  InProcessBus,
  type Logger,
  NatsBus,
  openRecordingStore,
  type RecordingStore,
  type Sql,
} from '@voice/shared';
import { startEmbeddedPostgres } from './embedded-postgres';

/** Start-up failed (or was interrupted), and stopping what it had started failed too. */
export class StartupCleanupError extends AggregateError {
  constructor(startError: unknown, cleanupError: unknown) {
    const reason = startError instanceof Error ? startError.message : String(startError);
    super([startError, cleanupError], `${reason}; stopping what had started failed too`);
    this.name = 'StartupCleanupError';
  }
}

export interface Infrastructure {
  bus: Bus;
  databaseUrl: string;
  /** Opens a pool for one component; each owns its pool so one busy service can't starve another. */
  openSql(component: string): Sql;
  /** A small pool of a component for bookkeeping whose commits need not wait for the disk. */
  openBookkeepingSql(component: string): Sql;
  /**
   * The recording store, opened on first use (only processes that serve or make recordings open
   * one): the JetStream object store on NATS, files in DATA_DIR/recordings otherwise.
   */
  recordingStore(): Promise<RecordingStore>;
  /**
   * Closes the bus, then the recording store, then every pool, then stops the embedded PostgreSQL: each step runs even when
   * an earlier one failed; failures are logged and rethrown together at the end.
   */
  close(): Promise<void>;
}

/**
 * Real NATS when NATS_URL is set, else the in-process bus; real Postgres at DATABASE_URL, else an
 * embedded PostgreSQL server with its data in DATA_DIR. The code above this line is the same either way.
 * `signal` abandons start-up (a shutdown signal): whatever was started is stopped again.
 */
export async function openInfrastructure(
  config: Config,
  log: Logger,
  processName: string,
  signal?: AbortSignal,
): Promise<Infrastructure> {
  const embeddedPg = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: join(config.DATA_DIR, 'postgres'),
        log: log.child({ component: 'postgres' }),
        ...(signal ? { signal } : {}),
      });
  let bus: Bus;
  try {
    signal?.throwIfAborted();
    bus = config.NATS_URL
      ? await NatsBus.connect({
          servers: config.NATS_URL,
          name: processName,
          prefix: config.BUS_PREFIX,
          requestTimeoutMs: config.BUS_REQUEST_TIMEOUT_MS,
          log: log.child({ component: 'bus' }),
          ...(signal ? { signal } : {}),
        })
      : new InProcessBus({
          requestTimeoutMs: config.BUS_REQUEST_TIMEOUT_MS,
          log: log.child({ component: 'bus' }),
        });
  } catch (error) {
    const cleanup = await embeddedPg?.stop().then(
      () => undefined,
      (stopError: unknown) => {
        log.error({ err: stopError }, 'embedded PostgreSQL failed to stop');
        return stopError ?? new Error('embedded PostgreSQL failed to stop');
      },
    );
    throw cleanup ? new StartupCleanupError(error, cleanup) : error;
  }
  const databaseUrl = config.DATABASE_URL ?? embeddedPg!.url;
  const pools: Sql[] = [];
  let recordings: Promise<RecordingStore> | undefined;
  let closing: Promise<void> | undefined;
  return {
    bus,
    databaseUrl,
    openSql(component) {
      const sql = createSql(databaseUrl, {
        max: config.DATABASE_POOL_SIZE,
        log: log.child({ component }),
        applicationName: `voice-${component}`,
      });
      pools.push(sql);
      return sql;
    },
    openBookkeepingSql(component) {
      const sql = createSql(databaseUrl, {
        max: 2,
        log: log.child({ component }),
        applicationName: `voice-${component}-bookkeeping`,
        relaxedCommit: true,
      });
      pools.push(sql);
      return sql;
    },
    recordingStore() {
      recordings ??= openRecordingStore(config, {
        log: log.child({ component: 'recordings' }),
        name: processName,
        signal,
      });
      return recordings;
    },
    close() {
      closing ??= runStages(log, [
        ['close the bus', () => bus.close()],
        ['close the recording store', async () => (await recordings?.catch(() => undefined))?.close()],
        ['close database pools', () => endPools(pools)],
        ['stop embedded PostgreSQL', async () => embeddedPg?.stop()],
      ]);
      return closing;
    },
  };
}

async function endPools(pools: Sql[]): Promise<void> {
  const outcomes = await Promise.allSettled(pools.map((sql) => sql.end({ timeout: 5 })));
  const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
  if (errors.length > 0)
    throw new AggregateError(errors, `${errors.length} database pool(s) failed to close`);
}

/**
 * Runs shutdown stages in order, each whatever happened to the ones before it (a failing bus close
 * must not leave pools open or PostgreSQL running). Each failure is logged as it happens; if any
 * failed, one AggregateError naming them is thrown once all have run.
 */
export async function runStages(log: Logger, stages: [string, () => Promise<unknown>][]): Promise<void> {
  const failures: Error[] = [];
  for (const [what, stage] of stages) {
    try {
      await stage();
    } catch (error) {
      log.error({ err: error, stage: what }, `shutdown: failed to ${what}`);
      failures.push(new Error(`failed to ${what}`, { cause: error }));
    }
  }
  if (failures.length > 0) {
    throw new AggregateError(failures, `shutdown incomplete: ${failures.map((f) => f.message).join('; ')}`);
  }
}
