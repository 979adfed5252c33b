import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, createSql, type Sql } from '@voice/shared';
import { processExists } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedPostgres } from '../src/embedded-postgres';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'embedded-pg-supervision' });

describe('embedded PostgreSQL supervision', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'voice-pg-supervision-'));
    // As root the server runs as the `postgres` user, which must be able to reach the folder.
    await chmod(parent, 0o755);
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('restarts a server that was killed, on the same port, and the pool carries on', async () => {
    // Durable, as the platform runs it: a kill loses no committed row.
    const server = await startEmbeddedPostgres({ dataDir: path.join(parent, 'killed'), log });
    const sql: Sql = createSql(server.url, { max: 2, log, applicationName: 'supervision-test' });
    try {
      await sql`CREATE TABLE kept (n int)`;
      await sql`INSERT INTO kept VALUES (1)`;
      const first = server.supervisor.pid()!;
      expect(first).toBeGreaterThan(0);
      process.kill(first, 'SIGKILL');
      // The pool's queries fail while the server is down, then work again once it is back.
      await vi.waitFor(
        async () => {
          expect(server.supervisor.restarts).toBe(1);
          expect(await sql`SELECT n FROM kept`).toEqual([{ n: 1 }]);
        },
        { timeout: 60_000, interval: 100 },
      );
      expect(server.supervisor.pid()).not.toBe(first);
      // Killed again, it is restarted again.
      process.kill(server.supervisor.pid()!, 'SIGKILL');
      await vi.waitFor(
        async () => {
          expect(server.supervisor.restarts).toBe(2);
          expect(await sql`SELECT count(*)::int AS n FROM kept`).toEqual([{ n: 1 }]);
        },
        { timeout: 60_000, interval: 100 },
      );
    } finally {
      await sql.end({ timeout: 1 });
      await server.stop();
    }
    expect(server.supervisor.pid()).toBeUndefined();
  });

  it('kills the backends a killed server leaves, so the new server can start and serve the pool', async () => {
    const server = await startEmbeddedPostgres({
      dataDir: path.join(parent, 'orphans'),
      log,
      durable: false,
    });
    const sql: Sql = createSql(server.url, { max: 1, log, applicationName: 'supervision-test' });
    try {
      const backend = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
      // A backend that cannot notice its server's death (stopped here; busy or swapped out on a
      // loaded machine) keeps the old shared memory, and the new server refuses to start while it does.
      process.kill(backend, 'SIGSTOP');
      process.kill(server.supervisor.pid()!, 'SIGKILL');
      await vi.waitFor(() => expect(server.supervisor.restarts).toBe(1), { timeout: 60_000, interval: 20 });
      await vi.waitFor(() => expect(processExists(backend), `backend ${backend}`).toBe(false), {
        timeout: 10_000,
        interval: 20,
      });
      await vi.waitFor(
        async () => {
          const [row] = await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          expect(row!.pid).not.toBe(backend);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await sql.end({ timeout: 1 });
      await server.stop();
    }
  });

  it('stops a server that ignores the polite signals by escalating to SIGKILL', async () => {
    const server = await startEmbeddedPostgres({
      dataDir: path.join(parent, 'frozen'),
      log,
      durable: false,
      stopSteps: [
        { signal: 'SIGINT', waitMs: 300 },
        { signal: 'SIGQUIT', waitMs: 300 },
        { signal: 'SIGKILL', waitMs: 30_000 },
      ],
    });
    const pid = server.supervisor.pid()!;
    // A stopped process takes no signal but SIGKILL: what a hung server looks like from outside.
    process.kill(pid, 'SIGSTOP');
    await server.stop();
    expect(processExists(pid)).toBe(false);
    // Stopped on purpose: not restarted.
    expect(server.supervisor.restarts).toBe(0);
    expect(server.supervisor.pid()).toBeUndefined();
  });

  it('gives up restarting once stop() is called while the server is down', async () => {
    const server = await startEmbeddedPostgres({ dataDir: path.join(parent, 'down'), log, durable: false });
    const pid = server.supervisor.pid()!;
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(server.supervisor.pid()).toBeUndefined(), { timeout: 10_000, interval: 5 });
    await server.stop();
    expect(server.supervisor.pid()).toBeUndefined();
    // Whatever restart was under way finished by stopping its server: none is running for the folder.
    expect(server.supervisor.restarts).toBeLessThanOrEqual(1);
    const again = await startEmbeddedPostgres({ dataDir: path.join(parent, 'down'), log, durable: false });
    await again.stop();
  });
});
