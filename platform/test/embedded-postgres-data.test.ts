import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/src/index';
// The embedded server lives in the platform package; its contract is tested with the db layer.
import { DataDirInUseError, startEmbeddedPostgres } from '../src/embedded-postgres';

const log = createLogger({
  level: process.env.TEST_LOG_LEVEL ?? 'silent',
  name: 'db-embedded-postgres-test',
});

describe('embedded PostgreSQL', () => {
  let parent: string;

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'voice-embedded-pg-'));
    // As root the server runs as the `postgres` user, which must be able to reach the folder.
    await chmod(parent, 0o755);
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('keeps its data across a stop and a start on the same folder', { timeout: 90_000 }, async () => {
    const dataDir = path.join(parent, 'pg');
    const first = await startEmbeddedPostgres({ dataDir, log });
    try {
      expect(first.initialised).toBe(true);
      const sql = postgres(first.url, { max: 1, onnotice: () => {} });
      await sql`create table kept (value text)`;
      await sql`insert into kept values ('survives')`;
      await sql.end();
      // A second server on a folder in use is refused before it starts.
      await expect(startEmbeddedPostgres({ dataDir, log })).rejects.toBeInstanceOf(DataDirInUseError);
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres({ dataDir, log });
    try {
      expect(second.initialised).toBe(false);
      const sql = postgres(second.url, { max: 1, onnotice: () => {} });
      expect(await sql`select value from kept`).toEqual([{ value: 'survives' }]);
      await sql.end();
    } finally {
      await second.stop();
    }
  });
});
