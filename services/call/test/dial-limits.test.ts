import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger, createSql, migrate, type Sql } from '@voice/shared';
import { createTestDatabase, infraModes, mostAtOnce, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLimitRepository } from '../src/db/account-limit-repository';
import { callRepository } from '../src/db/call-repository';
import type { CallRow } from '../src/db/call-rows';
import { migrations } from '../src/db/migrations';
import { testCallRow } from './support/call-rows';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'dial-limits-test' });
const FALLBACK = 2;

const call = (accountId: string, owner: string): CallRow => testCallRow({ accountId, owner });

/** The most calls of `accountId` dialed and not ended at any one moment, from their timestamps. */
async function mostDialedAtOnce(sql: Sql, accountId: string): Promise<number> {
  const rows = await sql<{ dialed_at: Date; ended_at: Date | null }[]>`
    SELECT dialed_at, ended_at FROM call.calls WHERE account_id = ${accountId} AND dialed_at IS NOT NULL`;
  return mostAtOnce(rows.map((r) => ({ start: r.dialed_at, end: r.ended_at })));
}

describe.each(infraModes())('dialing within accounts’ concurrent-call limits (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 8, log, applicationName: 'dial-limits-test' });
    await migrate(sql, migrations, log);
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  const dial = (owner: string, rows: readonly CallRow[]) =>
    sql.begin((tx) => callRepository.markDialed(tx, owner, rows, FALLBACK));

  it('dials up to the limit in order, holds the rest, and says how many slots are free', async () => {
    const acme = randomUUID();
    const other = randomUUID();
    await accountLimitRepository.set(sql, acme, 3, new Date());
    const acmeCalls = Array.from({ length: 5 }, () => call(acme, 'one'));
    const otherCalls = Array.from({ length: 3 }, () => call(other, 'one'));
    const gone = call(acme, 'another instance');
    await callRepository.placeAll(sql, [...acmeCalls, ...otherCalls, gone]);
    // Interleaved, as the round-robin hands them over; `gone` belongs to another instance.
    const batch = [acmeCalls[0]!, otherCalls[0]!, gone, acmeCalls[1]!, otherCalls[1]!, ...acmeCalls.slice(2)];
    batch.push(otherCalls[2]!);
    const marks = await dial('one', batch);
    const ids = (rows: CallRow[]) => rows.map((r) => r.id).sort();
    expect(marks.dialed.map((d) => d.id).sort()).toEqual(
      ids([...acmeCalls.slice(0, 3), ...otherCalls.slice(0, 2)]),
    );
    expect(marks.held.sort()).toEqual(ids([...acmeCalls.slice(3), otherCalls[2]!]));
    expect(
      marks.accounts.sort((a, b) => (a.account_id === acme ? -1 : 1) - (b.account_id === acme ? -1 : 1)),
    ).toEqual([
      { account_id: acme, limit: 3, known: true, free: 0 },
      // No limit stored for it: the fallback, and the caller is told so.
      { account_id: other, limit: FALLBACK, known: false, free: 0 },
    ]);
    // A dialed call ends: one slot, and the first held call takes it.
    await sql`UPDATE call.calls SET status = 'completed', ended_at = now() WHERE id = ${acmeCalls[0]!.id}`;
    const again = await dial('one', acmeCalls.slice(3));
    expect(again.dialed.map((d) => d.id)).toEqual([acmeCalls[3]!.id]);
    expect(again.held).toEqual([acmeCalls[4]!.id]);
    expect(await accountLimitRepository.load(sql, acme, FALLBACK)).toEqual({
      max_concurrent_calls: 3,
      known: true,
      active_calls: 3,
      waiting_calls: 2,
    });
  });

  it('keeps the latest change of a limit, whatever order the pushes arrive in', async () => {
    const acme = randomUUID();
    const earlier = new Date(Date.now() - 1000);
    const later = new Date();
    expect(await accountLimitRepository.set(sql, acme, 7, later)).toBe(true);
    expect(await accountLimitRepository.set(sql, acme, 4, earlier)).toBe(false);
    expect(await accountLimitRepository.set(sql, acme, 7, later)).toBe(true);
    expect((await accountLimitRepository.load(sql, acme, FALLBACK)).max_concurrent_calls).toBe(7);
  });

  it('never has more calls of an account dialed than its limit, however many instances dial at once', async () => {
    const LIMIT = 4;
    const acme = randomUUID();
    await accountLimitRepository.set(sql, acme, LIMIT, new Date());
    const owners = ['a', 'b', 'c', 'd'];
    const queues = new Map(
      owners.map((owner) => [owner, Array.from({ length: 30 }, () => call(acme, owner))]),
    );
    await callRepository.placeAll(sql, [...queues.values()].flat());
    let dialing = owners.length;
    // The carrier: ends dialed calls a few milliseconds after their dial, at random.
    const carrier = (async () => {
      while (dialing > 0) {
        await sql`
          UPDATE call.calls SET status = 'completed', ended_at = date_trunc('milliseconds', clock_timestamp())
          WHERE id IN (SELECT id FROM call.calls WHERE account_id = ${acme} AND dialed_at IS NOT NULL
            AND status = 'initializing' AND random() < 0.5)`;
        await delay(Math.random() * 5);
      }
    })();
    // Each instance dials its calls in batches of three, every held call again until all went.
    await Promise.all(
      owners.map(async (owner) => {
        let waiting = queues.get(owner)!;
        while (waiting.length > 0) {
          const marks = await dial(owner, waiting.slice(0, 3));
          const dialed = new Set(marks.dialed.map((d) => d.id));
          waiting = waiting.filter((row) => !dialed.has(row.id));
          if (dialed.size === 0) await delay(1);
        }
        dialing -= 1;
      }),
    );
    await carrier;
    await sql`
      UPDATE call.calls SET status = 'completed', ended_at = date_trunc('milliseconds', clock_timestamp())
      WHERE account_id = ${acme} AND status = 'initializing'`;
    const [count] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM call.calls WHERE account_id = ${acme} AND dialed_at IS NOT NULL`;
    expect(count!.n).toBe(120);
    // Every slot was used at some moment (so a lost lock would have shown), none more than it.
    expect(await mostDialedAtOnce(sql, acme)).toBe(LIMIT);
  });
});
