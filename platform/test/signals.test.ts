import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { api } from './support/http';
import { type PlatformProcess, spawnPlatform } from './support/process';

/** Like a project folder: traversable by the unprivileged user PostgreSQL runs as under root. */
async function dataDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-signals-'));
  await chmod(dir, 0o755);
  return dir;
}

/** Processes (postgres, initdb) whose command line names a path inside `dir`. */
function processesUsing(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'])
    .toString()
    .split('\n')
    .filter((line) => line.includes(dir));
}

async function waitForOutput(proc: PlatformProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (proc.child.exitCode !== null) throw new Error(`exited early:\n${proc.output()}`);
      expect(proc.output()).toMatch(pattern);
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

describe('signals during start-up (embedded default)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('SIGTERM at any point of start-up stops what started, PostgreSQL included', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await dataDirectory();
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };

    // 1. A fresh DATA_DIR, signalled while initdb runs: initdb finishes, the server never starts.
    const first = await spawnPlatform('all', env, { waitForUrl: false });
    await waitForOutput(first, /creating the PostgreSQL cluster/);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('start-up interrupted; stopped cleanly');
    expect(first.output()).not.toContain('running at');
    expect(processesUsing(dataDir)).toEqual([]);

    // 2. Signalled once PostgreSQL runs, before the gateway listens: PostgreSQL is stopped.
    const second = await spawnPlatform('all', env, { waitForUrl: false });
    await waitForOutput(second, /embedded PostgreSQL started/);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('start-up interrupted; stopped cleanly');
    expect(second.output()).not.toContain('creating the PostgreSQL cluster');
    expect(second.output()).not.toContain('running at');
    expect(processesUsing(dataDir)).toEqual([]);

    // 3. The cluster the interrupted first start made is whole: a normal start works.
    const third = await spawnPlatform('all', env, { timeoutMs: 60_000 });
    expect((await api(third.url!, 'GET', '/v1/health')).status).toBe(200);
    expect(await third.stop('SIGINT')).toBe(0);
    expect(third.output()).toContain('stopped cleanly');
    expect(processesUsing(dataDir)).toEqual([]);
  });

  it('a second signal while stopping exits 1 at once, and still leaves no PostgreSQL running', async () => {
    const dataDir = await dataDirectory();
    dirs.push(dataDir);
    const proc = await spawnPlatform(
      'all',
      { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
      {
        timeoutMs: 60_000,
      },
    );
    // Ctrl-C twice, as impatient users do: the second once the first is being acted on.
    proc.child.kill('SIGINT');
    await waitForOutput(proc, /shutting down/, 5_000);
    proc.child.kill('SIGINT');
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain('second signal while stopping');
    // The exit hook told the postmaster to stop; it takes a moment to go.
    await vi.waitFor(() => expect(processesUsing(dataDir)).toEqual([]), { timeout: 10_000, interval: 50 });
  }, 120_000);
});
