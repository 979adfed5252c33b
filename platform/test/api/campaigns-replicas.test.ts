import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Campaign } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  natsProcessEnv,
  type PlatformProcess,
  spawnPlatform,
  spawnService,
  waitForOutput,
} from '../support/process';
import {
  campaignApi,
  completingNumbers,
  countsSnapshot,
  createAgent,
  dialsPerNumber,
  FROM,
  maxOverlap,
  pollingAccount,
  watchCounts,
} from './campaigns-support';

/** A completed call takes ~0.3-0.6 s of wall time. */
const SIM_TIME_SCALE = 0.006;
const CAP = 3;

/**
 * The campaign service as separate processes on NATS + PostgreSQL: two replicas dispatching one
 * campaign, then one replica killed (-9) mid-campaign and restarted. The cap is counted in the
 * database and every placement carries a call id chosen before it, so whatever the timing no
 * number is dialed twice, none is lost and the cap holds.
 */
describe.runIf(infraModes().includes('nats'))('campaign service replicas (NATS + PostgreSQL)', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let database: TestDatabase;
  let env: Record<string, string>;
  let others: PlatformProcess[] = [];
  let replicas: PlatformProcess[] = [];
  let api: ReturnType<typeof campaignApi>;
  let agentId: string;
  let sql: postgres.Sql;

  /** A replica that logs its claims (debug), so the test can see which replica dialed. */
  async function startReplica(): Promise<PlatformProcess> {
    const proc = await spawnPlatform('campaign', { ...env, LOG_LEVEL: 'debug' }, { waitForUrl: false });
    await waitForOutput(proc, /"msg":"started"/);
    return proc;
  }

  const create = (name: string, numbers: string[]) =>
    api.create({
      name,
      agent_id: agentId,
      phone_number: FROM,
      contacts: numbers.map((phone, i) => ({ phone, name: `Contact ${i}` })),
      max_concurrent_calls: CAP,
    });

  /** Contacts of the campaign claimed for a dial so far, from the database. */
  async function claimed(campaignId: string): Promise<number> {
    const [row] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM campaign.contacts WHERE campaign_id = ${campaignId} AND attempts > 0`;
    return row!.n;
  }

  async function expectExactlyOnce(campaign: Campaign, numbers: string[]): Promise<void> {
    expect(campaign.counts).toMatchObject({ total: numbers.length, completed: numbers.length });
    const calls = await api.calls(campaign.id);
    expect(dialsPerNumber(calls)).toEqual(new Map(numbers.map((n) => [n, 1])));
    expect(maxOverlap(calls)).toBeLessThanOrEqual(CAP);
    for (const contact of await api.contacts(campaign.id)) {
      expect(contact).toMatchObject({ state: 'completed', attempts: 1 });
      expect(contact.call_ids).toHaveLength(1);
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    env = natsProcessEnv(
      { databaseUrl: database.url, prefix: 'campaigns', adminToken, simTimeScale: SIM_TIME_SCALE },
      { DATABASE_POOL_SIZE: '4' },
    );
    const [gateway, agent, call, telephony, ...campaign] = await Promise.all([
      spawnPlatform('gateway', env),
      spawnService('agent', env),
      spawnService('call', env),
      // Routes each call to its carrier at placement.
      spawnService('telephony', env),
      startReplica(),
      startReplica(),
    ]);
    others = [gateway!, agent!, call!, telephony!];
    replicas = campaign;
    const account = await pollingAccount({ url: gateway!.url!, adminToken }, 'Replicas');
    api = campaignApi(gateway!.url!, account.key);
    agentId = await createAgent(gateway!.url!, account.key);
    // Six processes start at once: on a loaded machine that takes a while.
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...others, ...replicas].map((p) => p.stop('SIGKILL')));
    await sql?.end({ timeout: 5 });
    await database?.drop();
  });

  it('shares one campaign between two replicas: the cap holds, each number is dialed once', async () => {
    const numbers = completingNumbers(18, '+1415551');
    const created = await create('Two replicas', numbers);
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    await expectExactlyOnce(done, numbers);
    const claimsBy = replicas.map((p) => p.output().match(/claimed campaign contacts/g)?.length ?? 0);
    expect(
      claimsBy.every((n) => n > 0),
      `claims per replica: ${claimsBy}`,
    ).toBe(true);
  });

  it('survives kill -9 of the replica dialing mid-campaign: none dialed twice, none lost, cap held, counts equal a recount throughout', async () => {
    // One replica left, so the one killed is the one doing the work.
    await replicas.pop()!.stop('SIGTERM');
    const numbers = completingNumbers(18, '+1415552');
    const created = await create('Killed mid-campaign', numbers);
    // Stored counts against a recount in one snapshot, before the kill, while down and after.
    const watch = watchCounts(sql, created.id);
    await api.waitFor(created.id, (c) => c.counts.completed >= 4);
    const killed = replicas.pop()!;
    expect(await killed.stop('SIGKILL')).toBeNull();

    // Down (its API answers 503, so the database is read): the calls in flight end, nobody new is
    // dialed. Claimed contacts were dialed, or are about to be once a replica is back.
    const claimedAtKill = await claimed(created.id);
    expect(claimedAtKill).toBeLessThan(numbers.length);
    await delay(800);
    expect(await claimed(created.id)).toBe(claimedAtKill);
    expect((await api.calls(created.id)).length).toBeLessThanOrEqual(claimedAtKill);

    replicas.push(await startReplica());
    const done = await api.waitFor(created.id, (c) => c.status === 'completed');
    const seen = await watch.stop();
    await expectExactlyOnce(done, numbers);
    expect(seen.mismatches).toEqual([]);
    expect(seen.inFlight, `${seen.taken} snapshots`).toBeGreaterThan(0);
    const { stored, recounted } = await countsSnapshot(sql, created.id);
    expect(stored).toEqual(recounted);
    // No replica had to repair counts that kept the campaign open (dispatcher.ts, completeIdle).
    for (const replica of replicas) expect(replica.output()).not.toContain('stored counts had kept open');
  }, 180_000);
});
