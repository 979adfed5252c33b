import { createLogger, createSql, type Sql } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { effectiveRateLimit } from '../../../gateway/src/auth/account-store';
import { type KeyCharge, RateLimiter } from '../../../gateway/src/rate-limit/limiter';
import { createAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform } from '../support/harness';
import { api } from '../support/http';
import { windowWithAtLeast } from './rate-limit-support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Charges `keyId` `perTick` times every 20 ms (about 250 a second with perTick 5: past the rate
 * that earns a lease) until `until` says stop; answers every charge.
 */
async function drive(
  limiter: RateLimiter,
  keyId: string,
  limit: number,
  perTick: number,
  until: (charges: KeyCharge[]) => boolean,
): Promise<KeyCharge[]> {
  const charges: KeyCharge[] = [];
  while (!until(charges)) {
    charges.push(
      ...(await Promise.all(
        Array.from({ length: perTick }, () => limiter.hitKey(keyId, effectiveRateLimit, limit)),
      )),
    );
    await sleep(20);
  }
  return charges;
}

const admitted = (charges: KeyCharge[]) =>
  charges.filter((c) => c.key === 'active' && !c.state.exceeded).length;

describe.each(infraModes())('rate-limit leases (%s)', (mode) => {
  let t: TestPlatform;
  let sql: Sql;
  const log = createLogger({ level: 'silent', name: 'test' });
  /** A second gateway instance's limiter: its own connections, its own leases, its own listener. */
  const instance = (leaseMs?: number) => new RateLimiter(sql, log, leaseMs === undefined ? {} : { leaseMs });
  /** A fresh window, a fresh key of `limit` a minute, and its id. */
  const freshKey = async (limit: number): Promise<string> => {
    await windowWithAtLeast(25);
    return (await createAccount(t, { name: 'Leases', plan: 'enterprise', rateLimitPerMinute: limit })).keyId;
  };
  /** Runs `test` with a key of a large limit and an instance of its own, closed afterwards. */
  const withBusyKey = async (
    leaseMs: number,
    test: (id: string, limiter: RateLimiter, limit: number) => Promise<void>,
  ): Promise<void> => {
    const limit = 100_000;
    const id = await freshKey(limit);
    const limiter = instance(leaseMs);
    try {
      await test(id, limiter, limit);
    } finally {
      await limiter.close();
    }
  };

  beforeAll(async () => {
    t = await startTestPlatform(mode);
    sql = createSql(t.databaseUrl, { log, max: 4, applicationName: 'lease-test' });
  });
  afterAll(async () => {
    await sql?.end();
    await t?.stop();
  });

  it('leases places to a busy key and still admits exactly its limit across two instances', async () => {
    const limit = 900;
    const id = await freshKey(limit);
    const first = t.platform.gateway!.deps.limiter;
    const second = instance();
    const leasedBefore = first.leasedTotal;
    try {
      const refusedTwice = (charges: KeyCharge[]) =>
        charges.filter((c) => c.key === 'active' && c.state.exceeded).length >= 10;
      const [a, b] = await Promise.all([
        drive(first, id, limit, 5, refusedTwice),
        drive(second, id, limit, 5, refusedTwice),
      ]);
      expect(admitted(a) + admitted(b)).toBe(limit);
      // Both instances answered some requests from a lease, not one round trip each.
      expect(first.leasedTotal - leasedBefore).toBeGreaterThan(0);
      expect(second.leasedTotal).toBeGreaterThan(0);
      // Every admitted request had its own place: no remaining budget was reported twice.
      const remaining = [...a, ...b]
        .filter((c) => c.key === 'active' && !c.state.exceeded)
        .map((c) => (c.key === 'active' ? c.state.remaining : -1));
      expect(Math.min(...remaining)).toBe(0);
      expect(Math.max(...remaining)).toBeLessThanOrEqual(limit - 1);
    } finally {
      await second.close();
    }
  });

  it('serves weighted charges from leases too: never past the limit, and the count holds what was charged', async () => {
    const limit = 1200;
    const id = await freshKey(limit);
    const bucket = `key:${id}`;
    const second = instance();
    const instances = [t.platform.gateway!.deps.limiter, second];
    const leasedBefore = instances.map((limiter) => limiter.leasedTotal);
    /** About 250 requests a second to each instance, every other one charged 3 places all or nothing. */
    const run = async (limiter: RateLimiter) => {
      let admitted = 0;
      let refusedPlain = 0;
      while (refusedPlain < 10) {
        const tick = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            i % 2 === 0
              ? limiter.hit(bucket, limit, 3, true).then((state) => (state.exceeded ? 0 : 3))
              : limiter.hitKey(id, effectiveRateLimit, limit).then((charge) => {
                  if (charge.key !== 'active') throw new Error(`key ${charge.key}`);
                  if (charge.state.exceeded) refusedPlain++;
                  return charge.state.exceeded ? 0 : 1;
                }),
          ),
        );
        admitted += tick.reduce((sum: number, places) => sum + places, 0);
        await sleep(20);
      }
      return { admitted, refusedPlain };
    };
    let results: { admitted: number; refusedPlain: number }[];
    try {
      results = await Promise.all(instances.map(run));
      for (const [i, limiter] of instances.entries())
        expect(limiter.leasedTotal).toBeGreaterThan(leasedBefore[i]!);
    } finally {
      await second.close();
    }
    const admitted = results.reduce((sum, r) => sum + r.admitted, 0);
    expect(admitted).toBeLessThanOrEqual(limit);
    // Every place is accounted for: a plain charge refused keeps its place, as a request past the
    // limit always has; a refused weighted one keeps none; leased places nobody used go back. (While
    // a refused charge's places are on their way back, a plain one may be refused with room left.)
    const refusedPlain = results.reduce((sum, r) => sum + r.refusedPlain, 0);
    await vi.waitFor(
      async () => {
        const [row] = await sql<{ count: number }[]>`
          SELECT sum(count)::int AS count FROM gateway.rate_limit_windows WHERE bucket = ${bucket}`;
        expect(row!.count).toBe(admitted + refusedPlain);
      },
      { timeout: 5000, interval: 100 },
    );
  });

  it('gives back the places a lease did not use, so the count is what was sent', async () => {
    await withBusyKey(300, async (id, limiter, limit) => {
      const charges = await drive(limiter, id, limit, 5, (c) => c.length >= 400);
      expect(limiter.leasedTotal).toBeGreaterThan(0);
      await vi.waitFor(
        async () => {
          const [row] = await sql<{ count: number }[]>`
            SELECT sum(count)::int AS count FROM gateway.rate_limit_windows WHERE bucket = ${`key:${id}`}`;
          expect(row!.count).toBe(charges.length);
        },
        // Given back when each lease ends (a statement each): seconds on a loaded machine.
        { timeout: 30_000, interval: 100 },
      );
    });
  });

  it('leases nothing from a count that was in flight when a revocation was heard', async () => {
    await withBusyKey(100, async (id, limiter, limit) => {
      // The count below must ask for places: its key busy by the last whole second's count, its
      // lease run out. A loaded machine can stall the pause past a whole second, leaving a count
      // that asks for none (granted 0): then the key is driven busy again and the count repeated.
      let granted = 0;
      for (let attempt = 1; granted === 0; attempt++) {
        expect(attempt, 'a count that asked for places').toBeLessThanOrEqual(5);
        // Over two seconds, so every whole second since the first saw about 250 requests.
        const started = Date.now();
        await drive(limiter, id, limit, 5, () => limiter.leasedTotal >= 20 && Date.now() - started > 2100);
        // The lease runs out; the key is still busy by the last second's count, so its next count
        // asks for another.
        await sleep(150);
        const leasedBefore = limiter.leasedTotal;
        const counting = limiter.hitKey(id, effectiveRateLimit, limit);
        // Another key's revocation, heard while that count is in flight: it may have read any key
        // before the revocation committed, so what it leased is given back, not held.
        limiter.forgetKey(crypto.randomUUID());
        expect((await counting).key).toBe('active');
        const [last] = await sql<{ granted: number }[]>`
          SELECT granted FROM gateway.rate_limit_windows WHERE bucket = ${`key:${id}`}
          ORDER BY window_start DESC LIMIT 1`;
        granted = last!.granted;
        expect((await limiter.hitKey(id, effectiveRateLimit, limit)).key).toBe('active');
        expect(limiter.leasedTotal).toBe(leasedBefore);
      }
    });
  });

  it.each(['the admin API of another instance', 'SQL'])(
    'drops a lease the moment its key is revoked through %s',
    async (how) => {
      // A lease that would last a minute: only the announcement can end it within this test.
      await withBusyKey(60_000, async (id, limiter, limit) => {
        await drive(limiter, id, limit, 5, () => limiter.leasedTotal >= 20);
        if (how === 'SQL') {
          await sql`UPDATE gateway.api_keys SET revoked_at = now() WHERE id = ${id}`;
        } else {
          const revoked = await api(t.url, 'DELETE', `/admin/api-keys/${id}`, { key: t.adminToken });
          expect(revoked.status).toBe(204);
        }
        await vi.waitFor(
          async () => expect((await limiter.hitKey(id, effectiveRateLimit, limit)).key).toBe('revoked'),
          // Heard through PostgreSQL's LISTEN: moments, or seconds on a loaded machine.
          { timeout: 30_000, interval: 20 },
        );
        // And it stays refused: no lease is granted to a revoked key.
        expect((await limiter.hitKey(id, effectiveRateLimit, limit)).key).toBe('revoked');
      });
    },
  );
});
