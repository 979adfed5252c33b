import { execFile } from 'node:child_process';
import { chmod, mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The system user PostgreSQL runs as when the platform runs as root (PostgreSQL refuses root). */
export const POSTGRES_USER = 'postgres';

export interface UserIds {
  uid: number;
  gid: number;
}

/** True when PostgreSQL must run as another user than this process: as root, on POSIX systems. */
export function runsAsRoot(): boolean {
  return process.getuid?.() === 0;
}

async function lookup(name: string): Promise<UserIds | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return undefined;
  }
}

/** The `postgres` user's ids, creating a system user (and group) of that name if there is none. */
export async function postgresUser(): Promise<UserIds> {
  const existing = await lookup(POSTGRES_USER);
  if (existing) return existing;
  // A concurrent start may create them first: failures are judged by the lookup that follows.
  await run('groupadd', ['-r', POSTGRES_USER]).catch(() => undefined);
  await run('useradd', ['-r', '-M', '-g', POSTGRES_USER, POSTGRES_USER]).catch(() => undefined);
  const created = await lookup(POSTGRES_USER);
  if (created) return created;
  throw new Error(
    `PostgreSQL cannot run as root, and there is no '${POSTGRES_USER}' user to run it as (creating one ` +
      'with groupadd/useradd failed): create that user, run as another user, or set DATABASE_URL.',
  );
}

/**
 * Whether a process running as `ids` can search every folder from / down to `target` (its nearest
 * existing ancestor when it does not exist yet). Node starts a child with a uid and gid and no
 * supplementary groups, so owner, group and other bits decide it as below (ACLs are not read).
 */
export async function canReach(ids: UserIds, target: string): Promise<boolean> {
  let folder = path.resolve(target);
  for (;;) {
    try {
      folder = await realpath(folder);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(folder) === folder) throw error;
      folder = path.dirname(folder);
    }
  }
  for (;;) {
    const info = await stat(folder);
    const bit = info.uid === ids.uid ? 0o100 : info.gid === ids.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) return false;
    const parent = path.dirname(folder);
    if (parent === folder) return true;
    folder = parent;
  }
}

/**
 * Creates `folder` (parents too) owned by root, mode 0755, and checks that nobody but root can
 * have put anything on its path: every folder on it is root's and not writable by others, or is
 * sticky like /tmp (where others cannot replace root's entries). What the `postgres` user runs or
 * keeps there can then only come from this process.
 */
export async function rootOwnedFolder(folder: string): Promise<void> {
  const first = await mkdir(folder, { recursive: true, mode: 0o755 });
  // The umask may have narrowed what mkdir made; each new folder must be traversable.
  if (first) {
    for (let made = path.resolve(folder); ; made = path.dirname(made)) {
      await chmod(made, 0o755);
      if (made === first || path.dirname(made) === made) break;
    }
  }
  const real = await realpath(folder);
  for (let current = real; ; current = path.dirname(current)) {
    const info = await stat(current);
    const sticky = (info.mode & 0o1000) !== 0 && current !== real;
    if (info.uid !== 0 || ((info.mode & 0o022) !== 0 && !sticky)) {
      throw new Error(
        `${current} is not a folder only root can write to (owner uid ${info.uid}, mode ` +
          `${(info.mode & 0o7777).toString(8)}); refusing to keep PostgreSQL's files under ${folder}`,
      );
    }
    if (path.dirname(current) === current) return;
  }
}
