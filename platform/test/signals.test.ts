import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { api } from './support/http';
import { freePort } from './support/ports';
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

/**
 * A slow client that keeps a graceful stop waiting for as long as the test likes: a keep-alive
 * connection whose next request has begun but whose headers never end. The first request (sent in
 * the same write) is answered only after the server read the whole write, so once its answer is
 * here the server knows of the second one and will wait for it.
 */
async function slowClient(baseUrl: string): Promise<Socket> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    answer += chunk.toString('latin1');
  });
  socket.write(
    `GET /v1/health HTTP/1.1\r\nHost: ${url.host}\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: ${url.host}\r\n`,
  );
  await vi.waitFor(
    () => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(body.length).toBe(Number(/content-length: (\d+)/i.exec(head)?.[1]));
    },
    { timeout: 30_000, interval: 10 },
  );
  return socket;
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

    // 2. Signalled once PostgreSQL runs, before the gateway listens: PostgreSQL is stopped. A NATS
    // address where nothing listens holds start-up there (the bus retries) for as long as it takes
    // the test to see it, however slow the machine.
    const deadNats = `nats://127.0.0.1:${await freePort()}`;
    const second = await spawnPlatform('all', { ...env, NATS_URL: deadNats }, { waitForUrl: false });
    await waitForOutput(second, /NATS not reachable yet; retrying/);
    expect(second.output()).toContain('embedded PostgreSQL started');
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
      // No forced exit while the test holds the stop (the default would end it after 15 s).
      {
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_MS: '600000',
      },
      { timeoutMs: 60_000 },
    );
    // A slow client keeps the graceful stop going until the second signal, so that one certainly
    // comes while stopping, not after a quick stop already exited.
    const held = await slowClient(proc.url!);
    try {
      // Ctrl-C twice, as impatient users do: the second once the first is being acted on.
      proc.child.kill('SIGINT');
      await waitForOutput(proc, /shutting down/);
      expect(proc.child.exitCode, 'the stop waits for the slow client').toBeNull();
      proc.child.kill('SIGINT');
      expect(await proc.exited).toBe(1);
    } finally {
      held.destroy();
    }
    expect(proc.output()).toContain('second signal while stopping');
    // The exit hook told the postmaster to stop; it takes a moment to go.
    await vi.waitFor(() => expect(processesUsing(dataDir)).toEqual([]), { timeout: 30_000, interval: 50 });
  }, 120_000);
});
