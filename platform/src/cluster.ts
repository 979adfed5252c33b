/**
 * `pnpm start:cluster`: the production topology on one machine, one OS process per component.
 * Given NATS_URL and DATABASE_URL, starts GATEWAY_REPLICAS gateways (ports PORT, PORT+1, ...) and
 * REPLICAS processes of each service, each `platform/src/main.ts <role>` as its own child process.
 * It prefixes and forwards their output, restarts a child that exits unexpectedly (with backoff),
 * and on SIGINT/SIGTERM stops them gracefully: gateways first, then services.
 *
 * Children run in their own process groups, so a Ctrl-C reaches only this supervisor, which then
 * stops them in order. Each child has an IPC channel to it: the child reports readiness over it
 * (whatever LOG_LEVEL is) and stops by itself if the supervisor disappears, even by kill -9.
 *
 * Environment (besides everything the platform reads, passed through to every child):
 *   REPLICAS=2                 processes per service (agent, call, campaign, webhook, telephony)
 *   GATEWAY_REPLICAS=2         gateway processes, on PORT, PORT+1, ... (PORT=0: each picks a port)
 *   METRICS_PORT               when set (not 0), process k (gateways first) gets METRICS_PORT + k
 *   CLUSTER_START_TIMEOUT_SECONDS=120   longest wait for every process to start
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Config, ConfigError, createLogger, loadConfig, SERVICE_NAMES } from '@voice/shared';
import type { StartedMessage } from './main';
import { recordingSecret } from './recording-secret';
import { CLUSTER_DEFAULTS, type ClusterRole } from './topology';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = 'platform/src/main.ts';
/** Waits before restarting a child that exited, by how many times in a row it did. */
const RESTART_DELAYS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000];
/** A child that ran this long after starting resets its backoff. */
const STABLE_AFTER_MS = 10_000;
/** Grace beyond the children's own SHUTDOWN_TIMEOUT_MS before SIGKILL. */
const STOP_GRACE_MS = 5_000;

interface ClusterSettings {
  replicas: number;
  gatewayReplicas: number;
  port: number;
  startTimeoutMs: number;
  stopTimeoutMs: number;
}

function say(message: string): void {
  process.stdout.write(`[cluster] ${message}\n`);
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new ConfigError([`${name}: must be an integer of at least ${min} (got '${raw}')`]);
  }
  return Number(raw);
}

function clusterSettings(env: NodeJS.ProcessEnv, config: Config): ClusterSettings {
  const replicas = positiveInt(env, 'REPLICAS', CLUSTER_DEFAULTS.replicas);
  const gatewayReplicas = positiveInt(env, 'GATEWAY_REPLICAS', CLUSTER_DEFAULTS.gatewayReplicas);
  if (config.PORT !== 0 && config.PORT + gatewayReplicas - 1 > 65_535) {
    throw new ConfigError([`PORT: ${config.PORT} + ${gatewayReplicas} gateways runs past port 65535`]);
  }
  const processes = gatewayReplicas + replicas * SERVICE_NAMES.length;
  if (config.METRICS_PORT && config.METRICS_PORT + processes - 1 > 65_535) {
    throw new ConfigError([
      `METRICS_PORT: ${config.METRICS_PORT} + ${processes} processes runs past port 65535`,
    ]);
  }
  return {
    replicas,
    gatewayReplicas,
    port: config.PORT,
    startTimeoutMs: positiveInt(env, 'CLUSTER_START_TIMEOUT_SECONDS', 120) * 1000,
    stopTimeoutMs: config.SHUTDOWN_TIMEOUT_MS + STOP_GRACE_MS,
  };
}

/** One supervised process: `main.ts <role>`, restarted with backoff whenever it exits unasked. */
class Member {
  child: ChildProcess | undefined;
  url: string | undefined;
  /** Resolves at the first 'started' of the current child. */
  private readyNow: (() => void) | undefined;
  private crashes = 0;
  private readyAt = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private exited: Promise<number | null> = Promise.resolve(null);
  everReady = false;
  onFirstExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;

  constructor(
    readonly name: string,
    readonly role: ClusterRole,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Starts the child; resolves once it reports that it serves. */
  start(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      this.readyNow = resolve;
    });
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, this.role], {
      cwd: REPO_ROOT,
      env: this.env,
      // Own process group: a terminal's Ctrl-C reaches the supervisor only, which stops in order.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    this.url = undefined;
    forward(child.stdout!, process.stdout, this.name);
    forward(child.stderr!, process.stderr, this.name);
    child.on('message', (message: Partial<StartedMessage>) => {
      if (message?.type !== 'started') return;
      this.url = message.url ?? undefined;
      this.readyAt = Date.now();
      this.everReady = true;
      const at = [this.url, message.metricsUrl && `metrics ${message.metricsUrl}`].filter(Boolean);
      say(`${this.name} ready (pid ${child.pid})${at.length > 0 ? ` at ${at.join(', ')}` : ''}`);
      this.readyNow?.();
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.onExit(child, code, signal);
        resolve(code);
      });
    });
    child.once('error', (error) => say(`${this.name} could not be started: ${error.message}`));
    say(`${this.name} starting (pid ${child.pid})`);
    return ready;
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.stopping) {
      say(`${this.name} stopped (${how})`);
      return;
    }
    if (!this.everReady && this.onFirstExit) {
      this.onFirstExit(code, signal);
      return;
    }
    if (this.readyAt > 0 && Date.now() - this.readyAt >= STABLE_AFTER_MS) this.crashes = 0;
    const delay = RESTART_DELAYS_MS[Math.min(this.crashes, RESTART_DELAYS_MS.length - 1)]!;
    this.crashes++;
    this.readyAt = 0;
    say(`${this.name} exited unexpectedly (${how}); restarting in ${delay} ms (restart ${this.crashes})`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopping) void this.start();
    }, delay);
  }

  /** SIGTERM (a graceful drain), SIGKILL after `timeoutMs`; resolves with the exit code. */
  async stop(timeoutMs: number): Promise<number | null> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    // Not running (it crashed and waited for its restart): nothing to stop, nothing failed now.
    if (!child || child.exitCode !== null || child.signalCode !== null) return 0;
    signalGroup(child, 'SIGTERM');
    const killer = setTimeout(() => {
      say(`${this.name} still running after ${timeoutMs} ms: SIGKILL`);
      signalGroup(child, 'SIGKILL');
    }, timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(killer);
    }
  }

  /** Immediate SIGKILL (a second Ctrl-C, or the supervisor failing). */
  kill(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) signalGroup(child, 'SIGKILL');
  }
}

/** The child's whole process group (it leads one: `detached`), or the child alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Copies a child's output line by line, each prefixed with the member's name. */
function forward(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, name: string): void {
  const prefix = `${name.padEnd(12)}| `;
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    to.write(`${prefix}${line}\n`);
  });
}

/**
 * Gateway n listens on PORT + n - 1. With METRICS_PORT set (not 0), process k of the list (gateways
 * first, then each service's replicas) serves /metrics on METRICS_PORT + k: one port each.
 */
function members(
  settings: ClusterSettings,
  env: NodeJS.ProcessEnv,
  metricsPort: number | undefined,
): Member[] {
  const list: Member[] = [];
  const envFor = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const k = list.length;
    const metrics = metricsPort ? { METRICS_PORT: String(metricsPort + k) } : {};
    return { ...env, ...extra, ...metrics };
  };
  for (let n = 1; n <= settings.gatewayReplicas; n++) {
    const port = settings.port === 0 ? 0 : settings.port + n - 1;
    list.push(new Member(`gateway-${n}`, 'gateway', envFor({ PORT: String(port) })));
  }
  for (const role of SERVICE_NAMES) {
    for (let n = 1; n <= settings.replicas; n++) list.push(new Member(`${role}-${n}`, role, envFor({})));
  }
  return list;
}

async function main(): Promise<void> {
  const env = process.env;
  if (!env.NATS_URL || !env.DATABASE_URL) {
    process.stderr.write(
      'start:cluster runs every component as its own process on real infrastructure: set NATS_URL and\n' +
        'DATABASE_URL, e.g.\n' +
        '  NATS_URL=nats://127.0.0.1:4222 DATABASE_URL=postgres://postgres@127.0.0.1:5432/voice pnpm start:cluster\n' +
        '(infra/scripts/start-nats.sh and start-postgres.sh start both locally; infra/scripts/dev-cluster.sh does it all).\n',
    );
    process.exit(2);
  }
  let config: Config;
  let settings: ClusterSettings;
  try {
    config = loadConfig(env);
    settings = clusterSettings(env, config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Every gateway and webhook process must sign recording links with the same key: resolve it
  // once here (generated and kept in DATA_DIR when unset) instead of in each child at once.
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    RECORDING_URL_SECRET:
      config.RECORDING_URL_SECRET ??
      (await recordingSecret(config, createLogger({ level: 'warn', name: 'voice-cluster' }))),
  };
  const all = members(settings, childEnv, config.METRICS_PORT);
  const gateways = all.filter((m) => m.role === 'gateway');
  const services = all.filter((m) => m.role !== 'gateway');
  say(
    `starting ${gateways.length} gateway(s) and ${SERVICE_NAMES.join(', ')} x ${settings.replicas} ` +
      `(${all.length} processes; NATS_URL=${config.NATS_URL})`,
  );

  let stopping: Promise<void> | undefined;
  let firstSignalAt = 0;
  const stopAll = (why: string, exitCode: number) => {
    stopping ??= (async () => {
      say(`${why}: stopping gateways, then services`);
      const codes: (number | null)[] = [];
      for (const group of [gateways, services]) {
        codes.push(...(await Promise.all(group.map((m) => m.stop(settings.stopTimeoutMs)))));
      }
      const clean = codes.every((c) => c === 0);
      say(
        clean ? 'all processes stopped cleanly' : `some processes did not stop cleanly (exit codes ${codes})`,
      );
      process.exit(clean ? exitCode : 1);
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) {
      firstSignalAt = Date.now();
      void stopAll(`${signal}`, 0);
      return;
    }
    // The same Ctrl-C can arrive twice (from the terminal and relayed by a wrapper): a second
    // one counts only once a moment has passed.
    if (Date.now() - firstSignalAt < 1_000) return;
    say(`second ${signal} while stopping: SIGKILL to every process`);
    for (const m of all) m.kill();
    process.exit(1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', () => {
    for (const m of all) m.kill();
  });
  // Run as `pnpm start:cluster` (the script execs node, so pnpm is the parent): pnpm exits on
  // SIGTERM without passing it on. A new parent means it is gone: stop as if signalled.
  if (env.npm_lifecycle_event) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent && !stopping) void stopAll(`parent process ${parent} exited`, 0);
    }, 500).unref();
  }

  // A process that exits before it ever started fails the whole start: a configuration error
  // shows at once instead of as an endless restart loop. Later exits are restarted.
  const failed = new Promise<never>((_, reject) => {
    for (const m of all) {
      m.onFirstExit = (code, signal) =>
        reject(
          new Error(`${m.name} exited during start-up (${signal ? `signal ${signal}` : `code ${code}`})`),
        );
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`not every process started within ${settings.startTimeoutMs / 1000} s`)),
      settings.startTimeoutMs,
    );
  });
  try {
    await Promise.race([Promise.all(all.map((m) => m.start())), failed, timeout]);
  } catch (error) {
    clearTimeout(timer);
    if (stopping) return;
    say(`start-up failed: ${(error as Error).message}; see its output above`);
    await stopAll('start-up failed', 1);
    return;
  }
  clearTimeout(timer);
  for (const m of all) m.onFirstExit = undefined;
  if (stopping) return;
  const urls = gateways.map((g) => g.url).filter(Boolean);
  say(`ready: ${all.length} processes; gateways at ${urls.join(', ')} (health: /v1/health)`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[cluster] failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
