import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@voice/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from '../src/embedded-postgres';
import { startTestPlatform, type TestPlatform } from './support/harness';
import { healthWhen } from './support/health';
import { api, type Envelope } from './support/http';

/** Every process of one PostgreSQL server: the postmaster (found by its data folder) and its children. */
function postgresProcesses(dataDir: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  const rows = table
    .trim()
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)?.slice(1) as [string, string, string]);
  const postmaster = rows.find(([, , args]) => args.includes(dataDir) && /postgres/.test(args));
  if (!postmaster) throw new Error(`no postmaster for ${dataDir}`);
  return [postmaster[0], ...rows.filter(([, ppid]) => ppid === postmaster[0]).map(([pid]) => pid)];
}

function signal(pids: string[], name: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of pids) process.kill(Number(pid), name);
}

describe('a stalled database', () => {
  let server: EmbeddedPostgresServer;
  let t: TestPlatform;
  let dataDir: string;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voice-stall-'));
    await chmod(dir, 0o755);
    dataDir = join(dir, 'pg');
    server = await startEmbeddedPostgres({
      dataDir,
      log: createLogger({ level: 'silent', name: 'pg' }),
      durable: false,
    });
    t = await startTestPlatform('embedded', { databaseUrl: server.url });
  }, 90_000);
  afterAll(async () => {
    await t?.stop();
    await server?.stop();
    await rm(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('leaves /v1/health answering 503 unavailable within seconds, and public discovery serving', async () => {
    await healthWhen(t.url, (health) => expect(health.status).toBe('ok'));
    const pids = postgresProcesses(dataDir);
    signal(pids, 'SIGSTOP');
    try {
      const started = Date.now();
      const health = await api<Envelope<{ status: string; components: Record<string, { status: string }> }>>(
        t.url,
        'GET',
        '/v1/health',
      );
      // Its probes give up after 1.5 s; the bound catches a health check that hangs with the
      // database, and leaves a loaded machine its stalls.
      expect(Date.now() - started).toBeLessThan(10_000);
      // Without its database the gateway serves nothing: out of the load balancer until it is back.
      expect(health.status).toBe(503);
      expect(health.body.data.status).toBe('unavailable');
      expect(health.body.data.components.database?.status).not.toBe('ok');
      // Each service bounds its own database probe, so it answers "degraded" instead of timing out.
      for (const service of ['agent', 'call', 'campaign', 'webhook', 'telephony']) {
        expect(health.body.data.components[service]?.status, service).toBe('degraded');
      }
      const voices = await api(t.url, 'GET', '/v1/voices');
      expect(voices.status).toBe(200);
      expect(voices.headers.get('x-ratelimit-limit')).toBe('300');
    } finally {
      signal(pids, 'SIGCONT');
    }
    // Resumed, PostgreSQL first works off what queued up meanwhile: health is ok again once it has.
    await healthWhen(t.url, (health) => expect(health.status).toBe('ok'));
  }, 90_000);
});
