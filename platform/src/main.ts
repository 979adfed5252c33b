import { ConfigError, createLogger, isEmbedded, loadConfig } from '@voice/shared';
import { printBanner } from './banner';
import { ROLES, type Role } from './components';
import { startPlatform } from './platform';

function parseRole(argv: string[]): Role {
  const role = argv[2] ?? 'all';
  if ((ROLES as readonly string[]).includes(role)) return role as Role;
  process.stderr.write(`Unknown role '${role}'. Use one of: ${ROLES.join(', ')}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const role = parseRole(process.argv);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const embedded = isEmbedded(config);
  if (role !== 'all' && (!config.NATS_URL || !config.DATABASE_URL)) {
    process.stderr.write(
      `Role '${role}' runs one component on real infrastructure: set NATS_URL and DATABASE_URL.\n`,
    );
    process.exit(1);
  }
  const log = createLogger({ level: config.LOG_LEVEL, name: `voice-${role}` });
  if (embedded && config.WEBHOOK_ALLOW_PRIVATE === undefined) config.WEBHOOK_ALLOW_PRIVATE = true;
  const platform = await startPlatform({ role, config, log, embedded });
  if (platform.url) printBanner({ url: platform.url, devKey: platform.devKey, config, embedded });
  log.info({ role, url: platform.url, embedded }, 'started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight work');
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    try {
      await platform.stop();
      log.info('stopped cleanly');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
