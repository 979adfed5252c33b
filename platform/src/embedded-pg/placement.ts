import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readlink, rmdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@voice/shared';
import { canReach, POSTGRES_USER, rootOwnedFolder, type UserIds } from './access';

/**
 * Where the cluster asked for at `requested` really lives. Normally `requested` itself. As root,
 * PostgreSQL runs as the `postgres` user, which cannot reach a folder inside a private one (a
 * home folder of mode 0700, as /root is). Then a new cluster is made in `dataRoot` (a folder only
 * root can write to), under a fresh name, and `requested` becomes a symbolic link to it: the data
 * persists across restarts through the link, and deleting DATA_DIR still starts afresh (the next
 * start makes a new cluster; the old one stays in `dataRoot` until removed by hand).
 */
export async function placeCluster(
  requested: string,
  ids: UserIds,
  dataRoot: string,
  log: Logger,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const found = await lstat(requested).catch(() => undefined);
    if (found?.isSymbolicLink()) {
      const target = path.resolve(path.dirname(requested), await readlink(requested));
      if (path.dirname(target) === path.resolve(dataRoot)) {
        await rootOwnedFolder(dataRoot);
        return target;
      }
    }
    if (await canReach(ids, requested)) return requested;
    const empty = found?.isDirectory() && (await readdir(requested)).length === 0;
    if (found && !empty) {
      throw new Error(
        `PostgreSQL runs as the '${POSTGRES_USER}' user when started as root, and it cannot reach ` +
          `${requested} (a folder on its path is private, like a home folder of mode 0700). It is ` +
          'not empty, so it is left where it is: make every folder on that path traversable ' +
          '(chmod o+x), move it where that user can reach it, or set DATA_DIR elsewhere.',
      );
    }
    await rootOwnedFolder(dataRoot);
    const target = path.join(dataRoot, `${slug(requested)}-${randomBytes(4).toString('hex')}`);
    await mkdir(path.dirname(requested), { recursive: true });
    if (empty) await rmdir(requested).catch(() => undefined);
    try {
      await symlink(target, requested);
    } catch (error) {
      // A concurrent start linked it first: take what it made.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt === 0) continue;
      throw error;
    }
    log.warn(
      { data_dir: requested, cluster: target },
      `the '${POSTGRES_USER}' user cannot reach the data folder (a folder on its path is private): ` +
        'the PostgreSQL cluster is kept in the cluster folder, linked from the data folder',
    );
    return target;
  }
}

/** A readable name from the path, so that an operator can tell the clusters in `dataRoot` apart. */
function slug(requested: string): string {
  const name = path
    .resolve(requested)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name.slice(-60) || 'cluster';
}
