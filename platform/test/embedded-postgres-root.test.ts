import { execFileSync } from 'node:child_process';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@voice/shared';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedBinaries, type PostgresBinaries } from '../src/embedded-pg/binaries';
import { type RootFolders, startEmbeddedPostgres } from '../src/embedded-postgres';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'embedded-pg-root' });
const asRoot = process.getuid?.() === 0 && process.platform === 'linux';

async function query<T>(url: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end();
  }
}

/**
 * A checkout in a private home folder (mode 0700, as /root is), started as root: PostgreSQL runs
 * as the `postgres` user, which can reach neither the installed binaries nor DATA_DIR there.
 */
describe.skipIf(!asRoot)('embedded PostgreSQL as root, installed in a private folder', () => {
  let home: string;
  let shared: string;
  let folders: RootFolders;
  let binaries: PostgresBinaries;

  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'voice-private-home-'));
    expect((await stat(home)).mode & 0o777).toBe(0o700);
    // The binaries package as a checkout in that home holds it (cp -a keeps its hard links).
    const installed = installedBinaries();
    execFileSync('cp', ['-a', installed.native, path.join(home, 'native')]);
    binaries = { ...installed, native: path.join(home, 'native') };
    // Stand-ins for /var/cache/voice-platform and /var/lib/voice-platform.
    shared = await mkdtemp(path.join(tmpdir(), 'voice-root-folders-'));
    await chmod(shared, 0o755);
    folders = { binaries: path.join(shared, 'cache'), data: path.join(shared, 'lib') };
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
    await rm(shared, { recursive: true, force: true });
  });

  it('runs copies of the binaries and keeps the cluster outside, linked from DATA_DIR', async () => {
    const dataDir = path.join(home, 'data', 'postgres');
    const options = { dataDir, log, durable: false, binaries, rootFolders: folders };
    const first = await startEmbeddedPostgres(options);
    let cluster: string;
    try {
      expect(first.initialised).toBe(true);
      await query(first.url, (sql) =>
        sql`create table kept (value text); insert into kept values ('yes')`.simple(),
      );
      expect((await lstat(dataDir)).isSymbolicLink()).toBe(true);
      cluster = path.resolve(path.dirname(dataDir), await readlink(dataDir));
      expect(path.dirname(cluster)).toBe(folders.data);
      // The server runs, as the postgres user, from the copy in the cache.
      const pid = Number.parseInt(await readFile(path.join(cluster, 'postmaster.pid'), 'utf8'), 10);
      const exe = await realpath(`/proc/${pid}/exe`);
      expect(exe.slice(0, folders.binaries.length + 1)).toBe(`${folders.binaries}/`);
      expect((await stat(`/proc/${pid}`)).uid).not.toBe(0);
      const cache = await stat(folders.binaries);
      expect([cache.uid, cache.mode & 0o777]).toEqual([0, 0o755]);
    } finally {
      await first.stop();
    }

    // A restart finds the same cluster through the link.
    const second = await startEmbeddedPostgres(options);
    try {
      expect(second.initialised).toBe(false);
      expect(await query(second.url, (sql) => sql`select value from kept`)).toEqual([{ value: 'yes' }]);
    } finally {
      await second.stop();
    }

    // Deleting DATA_DIR starts afresh, as it does anywhere else.
    await rm(path.join(home, 'data'), { recursive: true });
    const third = await startEmbeddedPostgres(options);
    try {
      expect(third.initialised).toBe(true);
      expect(path.resolve(path.dirname(dataDir), await readlink(dataDir))).not.toBe(cluster);
    } finally {
      await third.stop();
    }
  }, 120_000);

  it('leaves a cluster already in the private folder where it is, saying what to do', async () => {
    const dataDir = path.join(home, 'old', 'postgres');
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, 'PG_VERSION'), '18\n');
    await expect(
      startEmbeddedPostgres({ dataDir, log, durable: false, binaries, rootFolders: folders }),
    ).rejects.toThrow(/cannot reach .*old\/postgres.*chmod o\+x.*DATA_DIR elsewhere/s);
    expect((await lstat(dataDir)).isDirectory()).toBe(true);
  });
});
