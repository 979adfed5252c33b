import { randomBytes } from 'node:crypto';
import type { Call, CampaignContact } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase, testInfra } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignApi, createAgent, FROM, pollingAccount } from './api/campaigns-support';
import { type PlatformProcess, spawnPlatform, spawnService } from './support/process';

/** Monday 30 November 2026, 08:00 in New York (UTC-5). */
const SHOWN_AT_ANCHOR = Date.parse('2026-11-30T13:00:00Z');
/** One real second is 30 seconds of the campaign service's time. */
const SPEED = 30;

/**
 * Calling windows with every service its own process: the campaign service cannot be handed a
 * clock object, so it reads VOICE_TEST_CLOCK (platform/src/test-clock.ts), which the test computes
 * the same way. A contact waits, pending with its window's opening as next_attempt_at, and is
 * dialed once the campaign service's time reaches it, not before.
 */
describe.runIf(infraModes().includes('nats'))('calling windows across processes (NATS + PostgreSQL)', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const anchor = Date.now();
  const testClock = `${new Date(SHOWN_AT_ANCHOR).toISOString()}@${anchor}x${SPEED}`;
  const shownNow = () => SHOWN_AT_ANCHOR + (Date.now() - anchor) * SPEED;
  let database: TestDatabase;
  let env: Record<string, string>;
  const processes: PlatformProcess[] = [];
  let gatewayUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    env = {
      NATS_URL: testInfra().natsUrl!,
      DATABASE_URL: database.url,
      BUS_PREFIX: `window${randomBytes(6).toString('hex')}`,
      ADMIN_TOKEN: adminToken,
      RECORDING_URL_SECRET: `recording-${randomBytes(24).toString('hex')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      SIM_TIME_SCALE: '0.004',
      DATABASE_POOL_SIZE: '4',
    };
    // One at a time: each waits 30 s at most for its start, which a loaded machine can exceed
    // when they all compete.
    const gateway = await spawnPlatform('gateway', env);
    processes.push(gateway);
    gatewayUrl = gateway.url!;
    for (const role of ['agent', 'call', 'telephony']) processes.push(await spawnService(role, env));
    processes.push(await spawnService('campaign', { ...env, NODE_ENV: 'test', VOICE_TEST_CLOCK: testClock }));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await database?.drop();
  });

  it('refuses to start a process on a test clock outside NODE_ENV=test', async () => {
    const refused = await spawnPlatform(
      'campaign',
      { ...env, NODE_ENV: 'production', VOICE_TEST_CLOCK: testClock },
      { waitForUrl: false },
    );
    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toContain('VOICE_TEST_CLOCK is for tests only');
  });

  it('dials a contact when its window opens on the campaign service\u2019s clock', async () => {
    const account = await pollingAccount({ url: gatewayUrl, adminToken }, 'Windows');
    const agentId = await createAgent(gatewayUrl, account.key);
    const client = campaignApi(gatewayUrl, account.key);
    // A window opening 10 minutes (20 real seconds) after the next whole minute, in New York.
    const opens = Math.ceil(shownNow() / 60_000) * 60_000 + 10 * 60_000;
    const local = (at: number) => new Date(at - 5 * 3_600_000).toISOString().slice(11, 16);
    const created = await client.create({
      name: 'Across processes',
      agent_id: agentId,
      phone_number: FROM,
      contacts: [{ phone: '+12125553000' }],
      calling_window: { days: ['mon'], start: local(opens), end: local(opens + 3_600_000) },
    });

    const deadline = Date.now() + 60_000;
    let waiting: CampaignContact | undefined;
    for (;;) {
      [waiting] = await client.contacts(created.id);
      if (waiting?.next_attempt_at || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 40));
    }
    expect(waiting).toMatchObject({
      state: 'pending',
      attempts: 0,
      next_attempt_at: new Date(opens).toISOString(),
    });
    expect(await client.calls(created.id)).toEqual([]);

    const done = await client.waitFor(created.id, (c) => c.status === 'completed', 90_000);
    expect(done.counts).toMatchObject({ total: 1, completed: 1 });
    const [call]: Call[] = await client.calls(created.id);
    // Placed once the campaign service's time reached the opening: the real instant that maps to.
    const opensReal = anchor + (opens - SHOWN_AT_ANCHOR) / SPEED;
    expect(Date.parse(call!.created_at)).toBeGreaterThanOrEqual(opensReal - 50);
  }, 150_000);
});
