import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@voice/shared';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedPostgres } from '../src/embedded-postgres';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'embedded-pg-recovery' });

async function selectOne(url: string): Promise<unknown> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 as one`;
    return row?.one;
  } finally {
    await sql.end();
  }
}

/**
 * Starts the embedded server on `dataDir`, checks it answers a query and whether it made a new
 * cluster (`initialised`), then stops it.
 */
async function startsAndAnswers(dataDir: string, initialised: boolean): Promise<void> {
  const server = await startEmbeddedPostgres({ dataDir, log, durable: false });
  try {
    expect(server.initialised).toBe(initialised);
    expect(await selectOne(server.url)).toBe(1);
  } finally {
    await server.stop();
  }
}

/** A pid no process has: one past the kernel's limit. */
async function deadPid(): Promise<number> {
  const max = Number.parseInt(await readFile('/proc/sys/kernel/pid_max', 'utf8').catch(() => ''), 10);
  return Number.isFinite(max) ? max + 1 : 4_194_305;
}

describe('embedded PostgreSQL after an interrupted first start', () => {
  let parent: string;
  /** A complete cluster made by the first test, copied by later ones. */
  let complete: string;

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'voice-pg-recovery-'));
    // As root the server runs as the `postgres` user, which must be able to reach the folder.
    await chmod(parent, 0o755);
    complete = path.join(parent, 'complete');
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('builds a new cluster in a staging folder and renames it into place, password file inside', async () => {
    // What a first start killed during initdb leaves next to the data folder.
    const abandoned = `${complete}.initdb-${await deadPid()}`;
    await mkdir(path.join(abandoned, 'global'), { recursive: true });
    await writeFile(path.join(abandoned, 'PG_VERSION'), '18\n');
    await startsAndAnswers(complete, true);
    expect(existsSync(path.join(complete, 'global', 'pg_control'))).toBe(true);
    expect((await readFile(path.join(complete, 'voice-password'), 'utf8')).length).toBeGreaterThan(16);
    // No staging folder is left behind: neither ours nor the abandoned one.
    expect((await readdir(parent)).filter((name) => name.includes('.initdb-'))).toEqual([]);
  });

  it('replaces a half-made cluster (PG_VERSION but no global/pg_control) and starts', async () => {
    const dataDir = path.join(parent, 'half-made');
    // The partial tree an initdb killed part-way through leaves in place (as older versions did).
    await mkdir(path.join(dataDir, 'global'), { recursive: true });
    await mkdir(path.join(dataDir, 'base', '1'), { recursive: true });
    await mkdir(path.join(dataDir, 'pg_wal'), { recursive: true });
    await writeFile(path.join(dataDir, 'PG_VERSION'), '18\n');
    await writeFile(path.join(dataDir, 'postgresql.conf'), '# partial\n');
    await startsAndAnswers(dataDir, true);
    // And the cluster it made is reused as it is from then on.
    await startsAndAnswers(dataDir, false);
  });

  it('replaces a real cluster tree that lost its control file and password (initdb killed late)', async () => {
    const dataDir = path.join(parent, 'late-kill');
    execFileSync('cp', ['-a', complete, dataDir]);
    await rm(path.join(dataDir, 'global', 'pg_control'));
    await rm(path.join(dataDir, 'voice-password'));
    await startsAndAnswers(dataDir, true);
  });

  it('refuses a complete cluster without its password file, naming the file, and leaves it alone', async () => {
    const dataDir = path.join(parent, 'no-password');
    execFileSync('cp', ['-a', complete, dataDir]);
    await rm(path.join(dataDir, 'voice-password'));
    const started = startEmbeddedPostgres({ dataDir, log, durable: false });
    await expect(started).rejects.toThrow(/has no password in .*voice-password/);
    expect(existsSync(path.join(dataDir, 'global', 'pg_control'))).toBe(true);
  });

  it("refuses a folder that is not a cluster of ours, and doesn't touch it", async () => {
    const dataDir = path.join(parent, 'foreign');
    await mkdir(dataDir);
    await writeFile(path.join(dataDir, 'notes.txt'), 'mine');
    await expect(startEmbeddedPostgres({ dataDir, log, durable: false })).rejects.toThrow(
      /is not a PostgreSQL cluster made by this platform/,
    );
    expect(await readFile(path.join(dataDir, 'notes.txt'), 'utf8')).toBe('mine');
  });
});

describe('embedded PostgreSQL stop', () => {
  it('returns at once when the server already exited (Ctrl-C signals the whole process group)', async () => {
    const parent = await mkdtemp(path.join(tmpdir(), 'voice-pg-stop-'));
    await chmod(parent, 0o755);
    try {
      const dataDir = path.join(parent, 'pg');
      const server = await startEmbeddedPostgres({ dataDir, log, durable: false });
      const pid = Number.parseInt(await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8'), 10);
      process.kill(pid, 'SIGINT');
      await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(), { timeout: 30_000, interval: 20 });
      const started = performance.now();
      await server.stop();
      // Not the 15 s it waits for a server that does not confirm its stop; a loaded machine may
      // add a second or two, not that.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
