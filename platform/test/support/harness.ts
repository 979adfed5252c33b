import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TelephonyProvider } from '@voice/call-service';
import type { GatewayDeps } from '@voice/gateway';
import {
  type Clock,
  type Config,
  ConfigSchema,
  createLogger,
  JetStreamRecordingStore,
  type Logger,
} from '@voice/shared';
import { createTestDatabase, type InfraMode, testInfra } from '@voice/shared/testing';
import type { FastifyPluginAsync } from 'fastify';
import { pino } from 'pino';
import { type RunningPlatform, startPlatform } from '../../src/platform';

export interface TestPlatform {
  mode: InfraMode;
  url: string;
  adminToken: string | undefined;
  devKey: string | undefined;
  databaseUrl: string;
  config: Config;
  platform: RunningPlatform;
  /** Every log line the platform wrote, parsed (only when captureLogs was asked for). */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

export interface TestPlatformOptions {
  config?: Partial<Config>;
  /** Omit the admin API (ADMIN_TOKEN unset). */
  withoutAdmin?: boolean;
  surfaces?: FastifyPluginAsync<GatewayDeps>[];
  captureLogs?: boolean;
  /** Use this database as it is (a server the test runs itself) instead of a fresh clone. */
  databaseUrl?: string;
  /** Stands in for the telephone network (default: the simulated carrier). */
  callProvider?: TelephonyProvider;
  /** The campaign service's clock (calling windows, due retries): a ManualClock the test moves. */
  campaignClock?: Clock;
}

function captureLogger(lines: Record<string, unknown>[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

/**
 * The whole platform, as `pnpm start` runs it, on a fresh database: in-process bus for the
 * `embedded` mode, real NATS (under a private subject prefix) for the `nats` mode.
 */
export async function startTestPlatform(
  mode: InfraMode,
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : await createTestDatabase(mode);
  const dataDir = await mkdtemp(join(tmpdir(), 'voice-test-'));
  const adminToken = options.withoutAdmin ? undefined : `admin-${randomBytes(16).toString('hex')}`;
  const config: Config = {
    ...ConfigSchema.parse({}),
    PORT: 0,
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    NATS_URL: mode === 'nats' ? testInfra().natsUrl : undefined,
    BUS_PREFIX: mode === 'nats' ? `t${randomBytes(6).toString('hex')}` : '',
    ADMIN_TOKEN: adminToken,
    DATABASE_POOL_SIZE: 4,
    WEBHOOK_ALLOW_PRIVATE: true,
    RECORDING_URL_SECRET: `recording-${randomBytes(24).toString('hex')}`,
    LOG_LEVEL: 'silent',
    ...options.config,
  };
  const logs: Record<string, unknown>[] = [];
  const log = options.captureLogs
    ? captureLogger(logs)
    : createLogger({ level: process.env.TEST_LOG_LEVEL ?? config.LOG_LEVEL, name: 'test' });
  const platform = await startPlatform({
    role: 'all',
    config,
    log,
    embedded: true,
    ...(options.surfaces ? { surfaces: options.surfaces } : {}),
    ...(options.callProvider ? { callProvider: options.callProvider } : {}),
    ...(options.campaignClock ? { campaignClock: options.campaignClock } : {}),
  });
  return {
    mode,
    url: platform.url!,
    adminToken,
    devKey: platform.devKey,
    databaseUrl: database.url,
    config,
    platform,
    logs,
    async stop() {
      // The run's private recordings bucket goes with it (the NATS server outlives the run).
      const recordings = platform.gateway?.deps.recordingStore;
      if (recordings instanceof JetStreamRecordingStore) await recordings.destroy().catch(() => undefined);
      await platform.stop();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
