import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, infraModes, type TestDatabase, testInfra } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from './support/cluster';
import { api } from './support/http';
import { freePortRange } from './support/ports';
import { REPO_ROOT } from './support/process';

/** Runs the launcher to its exit; resolves with the exit code and everything it wrote. */
function runLauncher(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'platform/src/cluster.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('pnpm start:cluster (platform/src/cluster.ts)', () => {
  it('refuses to start without NATS_URL and DATABASE_URL, saying so', async () => {
    const { code, output } = await runLauncher({});
    expect(code).toBe(2);
    expect(output).toContain('set NATS_URL and');
    expect(output).toContain('DATABASE_URL');
  });

  describe.runIf(infraModes().includes('nats'))('on NATS + PostgreSQL', () => {
    let database: TestDatabase;
    let dataDir: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      database = await createTestDatabase('nats');
      dataDir = await mkdtemp(join(tmpdir(), 'voice-cluster-'));
      env = {
        NATS_URL: testInfra().natsUrl!,
        DATABASE_URL: database.url,
        BUS_PREFIX: `cluster${randomBytes(6).toString('hex')}`,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        DATABASE_POOL_SIZE: '2',
        GATEWAY_REPLICAS: '2',
        REPLICAS: '1',
      };
    });

    afterAll(async () => {
      await database?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('starts two gateways and every service as processes, restarts one killed, stops gateways first', async () => {
      const port = await freePortRange(2);
      const cluster = await Cluster.start({ ...env, PORT: String(port) }, join(dataDir, 'cluster.log'));
      try {
        for (const n of [0, 1]) {
          const health = await api(`http://127.0.0.1:${port + n}`, 'GET', '/v1/health');
          expect(health.status, `gateway on ${port + n}`).toBe(200);
        }
        const restart = await cluster.killAndAwaitRestart('call-1');
        expect(restart.newPid).not.toBe(restart.oldPid);
        expect(cluster.events().join('\n')).toMatch(
          /call-1 exited unexpectedly \(signal SIGKILL\); restarting in \d+ ms/,
        );
      } finally {
        expect(await cluster.stop('SIGTERM')).toBe(0);
      }
      const stopped = cluster.events().filter((l) => / stopped \(code 0\)$/.test(l));
      expect(stopped).toHaveLength(7);
      // Every gateway had stopped before any service did.
      expect(stopped.slice(0, 2).every((l) => l.includes('gateway-'))).toBe(true);
      expect(cluster.events()).toContain('[cluster] all processes stopped cleanly');
      // Seven Node processes start (up to 120 s, Cluster.start) and one restarts on two cores that a
      // loaded machine shares: the bound catches a hang, not a slow start.
    }, 300_000);

    it('fails the start, stopping the rest, when a process cannot start', async () => {
      const { code, output } = await runLauncher({
        ...env,
        PORT: '0',
        REPLICAS: '1',
        GATEWAY_REPLICAS: '1',
        // Nothing listens on port 1: every process fails its migrations at once.
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing',
      });
      expect(code).toBe(1);
      expect(output).toMatch(/\[cluster\] start-up failed: \S+ exited during start-up \(code 1\)/);
    }, 180_000);
  });
});
