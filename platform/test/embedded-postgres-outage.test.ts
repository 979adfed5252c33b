import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processExists } from '@voice/shared/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFailed, vi } from 'vitest';
import {
  campaignApi,
  completingNumbers,
  createAgent,
  dialsPerNumber,
  FROM,
  pollingAccount,
} from './api/campaigns-support';
import { healthWhen } from './support/health';
import { type PlatformProcess, spawnPlatform } from './support/process';

/** The postmaster's pid, from the lock file it keeps in its data folder. */
async function postmasterPid(dataDir: string): Promise<number> {
  const text = await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
  return Number.parseInt(text.split('\n')[0]!, 10);
}

/** The platform's lines about its PostgreSQL, for a failure's message. */
function postgresLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => /PostgreSQL|"component":"postgres"/.test(line))
    .slice(-20)
    .join('\n');
}

/**
 * Just after a restart a busy machine may still answer 503 or 504 for a moment (a pool
 * reconnecting, a query waiting for it): clients retry those, so does the test; a 500 fails it.
 */
const RECOVERING = [503, 504];

/** The platform's last warnings and errors. */
function problems(output: string): string {
  return output
    .split('\n')
    .filter((line) => /"level":(40|50)/.test(line))
    .slice(-30)
    .join('\n');
}

/**
 * The one-process default (`pnpm start`) with its own embedded PostgreSQL, as a user runs it: its
 * database is killed mid-campaign, and a stop is asked for while the database is down.
 */
describe('the embedded PostgreSQL dies under a running platform', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let parent: string;
  let dataDir: string;
  let proc: PlatformProcess | undefined;
  let runs = 0;
  const start = () =>
    spawnPlatform(
      'all',
      {
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        ADMIN_TOKEN: adminToken,
        SIM_TIME_SCALE: '0.02',
        LOG_LEVEL: 'info',
      },
      { timeoutMs: 120_000 },
    );

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'voice-pg-outage-'));
    // As root PostgreSQL runs as the `postgres` user, which must reach the folder.
    await chmod(parent, 0o755);
  });
  beforeEach(() => {
    dataDir = path.join(parent, `run-${++runs}`);
  });
  afterEach(async () => {
    // A test that failed half-way: SIGTERM, so the platform stops its PostgreSQL too.
    await proc?.stop('SIGTERM');
    proc = undefined;
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('restarts it; the campaign finishes, losing no one and dialing no one twice', async () => {
    proc = await start();
    const running = proc;
    // What went wrong inside the platform, whichever step failed (afterEach has stopped it by then).
    onTestFailed(() => console.error(problems(running.output())));
    const url = proc.url!;
    const t = { url, adminToken };
    const acme = await pollingAccount(t, 'Acme');
    const agentId = await createAgent(url, acme.key);
    const client = campaignApi(url, acme.key);
    const numbers = completingNumbers(40);
    const created = await client.create({
      name: 'Outage',
      agent_id: agentId,
      phone_number: FROM,
      max_concurrent_calls: 5,
      contacts: numbers.map((phone, i) => ({ phone, name: `Contact ${i}` })),
    });
    // Killed twice, at different points of the campaign; each time it is restarted.
    for (const [round, progress] of [5, 20].entries()) {
      await client.waitFor(created.id, (c) => c.counts.completed >= progress, 60_000, RECOVERING);
      const killed = await postmasterPid(dataDir);
      process.kill(killed, 'SIGKILL');
      await vi.waitFor(
        () =>
          expect(
            proc!.output().split('embedded PostgreSQL restarted').length - 1,
            postgresLines(proc!.output()),
          ).toBe(round + 1),
        { timeout: 60_000, interval: 50 },
      );
      expect(await postmasterPid(dataDir)).not.toBe(killed);
      await healthWhen(url, (health) => expect(health.status).toBe('ok'));
    }
    expect(proc.output()).toContain('embedded PostgreSQL exited unexpectedly; restarting it');

    const done = await client.waitFor(created.id, (c) => c.status === 'completed', 90_000, RECOVERING);
    const calls = await client.calls(created.id);
    const dials = dialsPerNumber(calls);
    expect([...dials.keys()].sort()).toEqual([...numbers].sort());
    for (const [number, count] of dials) expect(count, number).toBe(1);
    const unfinished = calls
      .filter((call) => call.status !== 'completed')
      .map((call) => `${call.id} ${call.status} ${call.call_end_reason} ${call.ended_by}`);
    expect(unfinished, problems(proc.output())).toEqual([]);
    expect(done.counts).toMatchObject({ total: 40, pending: 0, in_progress: 0, completed: 40 });

    expect(await proc.stop('SIGTERM')).toBe(0);
    expect(proc.output()).toContain('stopped cleanly');
    proc = undefined;
    // Two restarts on a machine whose cores are all busy: each wait above has its own bound.
  }, 300_000);

  it('stops within its shutdown timeout when the database is down, leaving no server behind', async () => {
    proc = await start();
    await healthWhen(proc.url!, (health) => expect(health.status).toBe('ok'));
    const first = await postmasterPid(dataDir);
    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(proc!.output()).toContain('embedded PostgreSQL exited unexpectedly'), {
      timeout: 30_000,
      interval: 20,
    });
    const code = await proc.stop('SIGTERM');
    // 0 when everything stopped cleanly; 1 when the dead database made a stage fail.
    expect([0, 1]).toContain(code);
    const last = await postmasterPid(dataDir).catch(() => undefined);
    if (last !== undefined) expect(processExists(last), `postmaster ${last} left running`).toBe(false);
    proc = undefined;
  });
});
