import { join } from 'node:path';
import {
  type Bus,
  type Config,
  createSql,
  InProcessBus,
  type Logger,
  NatsBus,
  type Sql,
} from '@voice/shared';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface Infrastructure {
  bus: Bus;
  databaseUrl: string;
  /** Opens a pool for one component; each owns its pool so one busy service can't starve another. */
  openSql(component: string): Sql;
  close(): Promise<void>;
}

/**
 * Real NATS when NATS_URL is set, else the in-process bus; real Postgres at DATABASE_URL, else an
 * embedded PostgreSQL server with its data in DATA_DIR. The code above this line is the same either way.
 */
export async function openInfrastructure(
  config: Config,
  log: Logger,
  processName: string,
): Promise<Infrastructure> {
  const embeddedPg = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: join(config.DATA_DIR, 'postgres'),
        log: log.child({ component: 'postgres' }),
      });
  const databaseUrl = config.DATABASE_URL ?? embeddedPg!.url;
  const bus: Bus = config.NATS_URL
    ? await NatsBus.connect({
        servers: config.NATS_URL,
        name: processName,
        prefix: config.BUS_PREFIX,
        requestTimeoutMs: config.BUS_REQUEST_TIMEOUT_MS,
        log: log.child({ component: 'bus' }),
      })
    : new InProcessBus({
        requestTimeoutMs: config.BUS_REQUEST_TIMEOUT_MS,
        log: log.child({ component: 'bus' }),
      });
  const pools: Sql[] = [];
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
    async close() {
      await bus.close();
      await Promise.allSettled(pools.map((sql) => sql.end({ timeout: 5 })));
      await embeddedPg?.stop();
    },
  };
}
