import { type ChildProcess, spawn } from 'node:child_process';
import { chown, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@voice/shared';
import type { UserIds } from './access';
import { type PostgresBinaries, program } from './binaries';

export interface RunAs {
  binaries: PostgresBinaries;
  /** Set when running as root: the programs run as this (the `postgres`) user. */
  ids: UserIds | undefined;
  log: Logger;
}

/** The database superuser initdb creates (not the system user the server may run as). */
export const SUPERUSER = 'postgres';

/** The server's messages are matched below: they must be in English whatever the host's locale. */
const ENV = { ...process.env, LC_MESSAGES: 'C' };
const READY = 'database system is ready to accept connections';
const KEPT_LINES = 20;

function launch(run: RunAs, name: 'initdb' | 'postgres', args: string[]): ChildProcess {
  // cwd /: the one inherited may be a folder the `postgres` user cannot reach.
  return spawn(program(run.binaries, name), args, {
    cwd: '/',
    env: ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(run.ids ?? {}),
  });
}

/** Keeps the last lines of output for error messages; everything goes to the debug log. */
function collect(child: ChildProcess, run: RunAs, onLine?: (line: string) => void): () => string {
  const recent: string[] = [];
  const read = (chunk: Buffer) => {
    for (const raw of chunk.toString('utf8').split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      recent.push(line);
      if (recent.length > KEPT_LINES) recent.shift();
      run.log.debug({ postgres: line }, 'embedded postgres');
      onLine?.(line);
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  return () => recent.join(' | ');
}

function spawnFailure(run: RunAs, name: 'initdb' | 'postgres', error: Error): Error {
  const as = run.ids ? ` as the 'postgres' user (uid ${run.ids.uid})` : '';
  return new Error(`cannot run ${program(run.binaries, name)}${as}: ${error.message}`, {
    cause: error,
  });
}

/**
 * initdb into `<staging>/pgdata`, with the superuser password read from a file in `staging`: that
 * folder is the `postgres` user's alone (mode 0700), so no other local user can read the password.
 */
export async function initdb(staging: string, password: string, run: RunAs): Promise<string> {
  const pgdata = path.join(staging, 'pgdata');
  const pwfile = path.join(staging, 'pwfile');
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (run.ids) {
    await chown(staging, run.ids.uid, run.ids.gid);
    await chown(pwfile, run.ids.uid, run.ids.gid);
  }
  const child = launch(run, 'initdb', [
    `--pgdata=${pgdata}`,
    '--auth=scram-sha-256',
    `--username=${SUPERUSER}`,
    `--pwfile=${pwfile}`,
    '--lc-messages=C',
  ]);
  const output = collect(child, run);
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(spawnFailure(run, 'initdb', error)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`initdb failed (code ${code}, signal ${signal}): ${output()}`));
    });
  });
  return pgdata;
}

export interface PostgresChild {
  process: ChildProcess;
  /** The last lines the server printed. */
  output(): string;
}

/** Starts the server on `dataDir` and resolves once it accepts connections; rejects if it exits first. */
export function startServer(
  dataDir: string,
  port: number,
  flags: string[],
  run: RunAs,
): Promise<PostgresChild> {
  const child = launch(run, 'postgres', ['-D', dataDir, '-p', String(port), ...flags]);
  return new Promise((resolve, reject) => {
    const output = collect(child, run, (line) => {
      if (line.includes(READY)) resolve({ process: child, output });
    });
    child.once('error', (error) => reject(spawnFailure(run, 'postgres', error)));
    child.once('exit', (code, signal) =>
      reject(new Error(`exited before it was ready (code ${code}, signal ${signal}): ${output()}`)),
    );
  });
}

/**
 * Sends `signal` (SIGINT: fast shutdown) and waits at most `timeoutMs` for the exit; false when the
 * exit was not seen in time.
 */
export async function stopServer(
  child: ChildProcess,
  timeoutMs: number,
  signal: NodeJS.Signals = 'SIGINT',
): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<boolean>((resolve) => {
    child.once('exit', () => resolve(true));
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  child.kill(signal);
  const outcome = await exited;
  clearTimeout(timer);
  return outcome;
}
