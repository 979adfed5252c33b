import { ConfigError, createLogger, isEmbedded, type Logger, loadConfig } from '@voice/shared';
import { printBanner } from './banner';
import { ROLES, type Role } from './components';
import { StartupCleanupError } from './infrastructure';
import { type RunningPlatform, startPlatform } from './platform';

/** What a process sends its supervisor over IPC once it serves (see cluster.ts). */
export interface StartedMessage {
  type: 'started';
  role: Role;
  url: string | null;
  metricsUrl: string | null;
}

function parseRole(argv: string[]): Role {
  const role = argv[2] ?? 'all';
  if ((ROLES as readonly string[]).includes(role)) return role as Role;
  process.stderr.write(`Unknown role '${role}'. Use one of: ${ROLES.join(', ')}\n`);
  process.exit(2);
}

/**
 * SIGTERM/SIGINT at any time, start-up included: the first stops gracefully (a start under way is
 * abandoned after its current step and whatever it started, embedded PostgreSQL included, is
 * stopped) and exits 0 if everything stopped cleanly, 1 otherwise or after SHUTDOWN_TIMEOUT_MS.
 * A second signal exits 1 at once (Ctrl-C twice); the embedded PostgreSQL is still told to
 * stop on the way out (its 'exit' hook), so nothing is left running.
 */
class Shutdown {
  private readonly abort = new AbortController();
  private platform: RunningPlatform | undefined;
  private signals = 0;

  constructor(
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {
    process.on('SIGTERM', () => this.onSignal('SIGTERM'));
    process.on('SIGINT', () => this.onSignal('SIGINT'));
    // Started by a supervisor with an IPC channel (`pnpm start:cluster`): stop as on SIGTERM
    // when it goes away, even by kill -9, rather than run on orphaned. The channel must not keep
    // the process alive by itself (the listener refs it).
    if (process.send) {
      process.once('disconnect', () => this.onSignal('SIGTERM', 'supervisor gone'));
      process.channel?.unref();
    }
  }

  /** Aborted once a signal arrives before start-up finished. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Start-up finished; a signal that arrived meanwhile already aborted it, so this one is live. */
  started(platform: RunningPlatform): void {
    this.platform = platform;
  }

  /** startPlatform rejected: after a signal that is the expected way out. */
  startFailed(error: unknown): void {
    if (!this.abort.signal.aborted) throw error;
    if (error instanceof StartupCleanupError) {
      this.log.error({ err: error }, 'start-up interrupted; stopping what had started failed');
      process.exit(1);
    }
    this.log.info('start-up interrupted; stopped cleanly');
    process.exit(0);
  }

  private onSignal(signal: NodeJS.Signals, reason?: string): void {
    this.signals++;
    if (this.signals > 1) {
      this.log.error({ signal, reason }, 'second signal while stopping: exiting at once');
      process.exit(1);
    }
    const force = setTimeout(() => {
      this.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, this.timeoutMs);
    force.unref();
    if (!this.platform) {
      this.log.info({ signal, reason }, 'signal during start-up: stopping what has started');
      this.log.flush();
      this.abort.abort(new Error(`start-up interrupted by ${signal}`));
      return;
    }
    this.log.info({ signal, reason }, 'shutting down: finishing in-flight work');
    this.log.flush();
    this.platform.stop().then(
      () => {
        this.log.info('stopped cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        this.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  }
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
  // Before anything starts, so a signal during start-up cannot orphan what it started.
  const shutdown = new Shutdown(log, config.SHUTDOWN_TIMEOUT_MS);
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({ role, config, log, embedded, signal: shutdown.signal });
  } catch (error) {
    return shutdown.startFailed(error);
  }
  shutdown.started(platform);
  if (platform.url)
    printBanner({
      url: platform.url,
      devKey: platform.devKey,
      metricsUrl: platform.metricsUrl,
      config,
      embedded,
      telephony: platform.telephony,
    });
  log.info({ role, url: platform.url, metrics_url: platform.metricsUrl, embedded }, 'started');
  log.flush();
  // A supervisor (platform/src/cluster.ts) learns readiness here, whatever LOG_LEVEL says.
  process.send?.({
    type: 'started',
    role,
    url: platform.url ?? null,
    metricsUrl: platform.metricsUrl ?? null,
  } satisfies StartedMessage);
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
