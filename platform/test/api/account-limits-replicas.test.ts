import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Call } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { api, type Envelope } from '../support/http';
import { natsProcessEnv, type PlatformProcess, spawnPlatform, spawnService } from '../support/process';
import { mostDialedAtOnce, untilNoLiveCalls } from './account-limits-support';
import { completingNumbers, createAgent, FROM } from './campaigns-support';

/** A completed call takes ~0.3-0.6 s of wall time. */
const SIM_TIME_SCALE = 0.006;
const LIMIT = 3;
const CALLS = 45;

/**
 * Three call service instances on NATS + PostgreSQL dialing one account's calls (POST /v1/call is
 * answered by whichever instance the queue group picks), one of them killed (-9) midway: the
 * account's limit holds at every moment, every call is dialed once and completes.
 */
describe.runIf(infraModes().includes('nats'))(
  'an account’s concurrent-call limit across call service instances',
  () => {
    const adminToken = `admin-${randomBytes(16).toString('hex')}`;
    let database: TestDatabase;
    let sql: postgres.Sql;
    let env: Record<string, string>;
    let others: PlatformProcess[] = [];
    let calls: PlatformProcess[] = [];
    let gatewayUrl: string;
    let acme: TestAccount;

    beforeAll(async () => {
      database = await createTestDatabase('nats');
      sql = postgres(database.url, { max: 2, onnotice: () => {} });
      env = natsProcessEnv(
        { databaseUrl: database.url, prefix: 'limits', adminToken, simTimeScale: SIM_TIME_SCALE },
        // A killed instance's calls are taken over within seconds.
        { CALL_LEASE_SECONDS: '2', DATABASE_POOL_SIZE: '3' },
      );
      const [gateway, agent, telephony] = await Promise.all([
        spawnPlatform('gateway', env),
        spawnService('agent', env),
        spawnService('telephony', env),
      ]);
      others = [gateway!, agent!, telephony!];
      gatewayUrl = gateway!.url!;
      // No call service yet: the account is created all the same, its limit delivered once one runs.
      acme = await createAccount(
        { url: gatewayUrl, adminToken },
        { name: 'Capped', maxConcurrentCalls: LIMIT },
      );
      calls = await Promise.all([1, 2, 3].map(() => spawnService('call', env)));
      // Six processes start at once: on a loaded machine that takes a while.
    }, 180_000);

    afterAll(async () => {
      await Promise.all([...others, ...calls].map((p) => p.stop('SIGKILL')));
      await sql?.end({ timeout: 5 });
      await database?.drop();
    });

    it('gets the limit of an account created while no call service ran, once one does', async () => {
      // The gateway marks the account synced only after the call service stored its limit: waited
      // for, since the call service's row shows up just before the gateway's flag.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [account] = await sql<{ synced: boolean }[]>`
        SELECT call_limit_synced AS synced FROM gateway.accounts WHERE id = ${acme.accountId}`;
        if (account?.synced) break;
        expect(Date.now()).toBeLessThan(deadline);
        await delay(200);
      }
      const [row] = await sql<{ max_concurrent_calls: number }[]>`
      SELECT max_concurrent_calls FROM call.account_limits WHERE account_id = ${acme.accountId}`;
      expect(row?.max_concurrent_calls).toBe(LIMIT);
    }, 90_000);

    it('never has more calls dialed than the limit, with three instances dialing and one killed midway', async () => {
      const agentId = await createAgent(gatewayUrl, acme.key);
      // The number of the account's calls dialed and not ended, sampled throughout.
      let sampling = true;
      let mostSampled = 0;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM call.calls WHERE account_id = ${acme.accountId}
            AND dialed_at IS NOT NULL AND status IN ('initializing', 'ringing', 'in_progress')`;
          mostSampled = Math.max(mostSampled, row!.n);
          await delay(5);
        }
      })();
      const placed = await Promise.all(
        completingNumbers(CALLS, '+1415559').map(async (phone) => {
          const res = await api<Envelope<Call>>(gatewayUrl, 'POST', '/v1/call', {
            key: acme.key,
            body: { agent_id: agentId, source_number: FROM, phone_number: phone },
          });
          expect(res.status, res.text).toBe(201);
          return res.body.data.id;
        }),
      );
      // Every instance holds some: the queue group spread the placements.
      const owners = await sql<{ owner: string }[]>`
      SELECT DISTINCT owner FROM call.calls WHERE id = ANY(${placed}::uuid[]) AND owner IS NOT NULL`;
      expect(owners.length).toBeGreaterThan(1);

      const deadline = Date.now() + 60_000;
      for (;;) {
        const [ended] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM call.calls WHERE id = ANY(${placed}::uuid[]) AND ended_at IS NOT NULL`;
        if (ended!.n >= CALLS / 3) break;
        expect(Date.now()).toBeLessThan(deadline);
        await delay(50);
      }
      expect(await calls[0]!.stop('SIGKILL')).toBeNull();
      await untilNoLiveCalls(sql, acme.accountId);
      sampling = false;
      await sampler;

      const rows = await sql<{ status: string; call_end_reason: string; dialed_at: Date; ended_at: Date }[]>`
      SELECT status, call_end_reason, dialed_at, ended_at FROM call.calls WHERE id = ANY(${placed}::uuid[])`;
      expect(rows).toHaveLength(CALLS);
      for (const row of rows) expect(row.dialed_at).not.toBeNull();
      expect(rows.filter((r) => r.status !== 'completed').map((r) => r.call_end_reason)).toEqual([]);
      expect(mostSampled).toBeLessThanOrEqual(LIMIT);
      // Every slot was used at some moment (so a limit that did not hold would have shown), none more.
      expect(mostDialedAtOnce(rows)).toBe(LIMIT);
    }, 180_000);
  },
);
