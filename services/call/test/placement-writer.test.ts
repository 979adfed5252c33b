import { randomUUID } from 'node:crypto';
import {
  createLogger,
  createSql,
  eventEnvelope,
  migrate,
  type Sql,
  type TransactionSql,
} from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLimitRepository } from '../src/db/account-limit-repository';
import { callRepository } from '../src/db/call-repository';
import { migrations } from '../src/db/migrations';
import { PlacementWriter } from '../src/db/placement-writer';
import { TransitionWriter } from '../src/db/transition-writer';
import { testCallRow } from './support/call-rows';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'placement-writer-test' });
const ACCOUNT = randomUUID();
const AGENT = randomUUID();

function newCall(id: string = randomUUID()) {
  return { row: testCallRow({ id, accountId: ACCOUNT, agentId: AGENT, owner: 'test', metadata: { n: 1 } }) };
}

describe.each(infraModes())('placing and dialing calls (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 4, log, applicationName: 'placement-writer-test' });
    await migrate(sql, migrations, log);
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  async function stored(calls: ReturnType<typeof newCall>[]) {
    const ids = calls.map((c) => c.row.id);
    const [row] = await sql<{ calls: number; statements: number; transitions: number; events: number }[]>`
      SELECT (SELECT count(*)::int FROM call.calls WHERE id = ANY(${ids}::uuid[])) AS calls,
             (SELECT count(DISTINCT xmin::text)::int FROM call.calls WHERE id = ANY(${ids}::uuid[])) AS statements,
             (SELECT count(*)::int FROM call.call_transitions WHERE call_id = ANY(${ids}::uuid[])) AS transitions,
             (SELECT count(*)::int FROM call.outbox
               WHERE payload->'data'->>'call_id' = ANY(${ids}::text[])
                  OR payload->'data'->'call'->>'id' = ANY(${ids}::text[])) AS events`;
    return row!;
  }

  it('stores the calls that arrive while a statement is in flight together, each with its transition and no outbox row', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const calls = Array.from({ length: 12 }, () => newCall());
    // Two placed in one turn go together; once their statement is in flight, ten more arrive.
    const first = calls.slice(0, 2).map((c) => writer.place(c.row));
    await new Promise((resolve) => setImmediate(resolve));
    const placed = await Promise.all([...first, ...calls.slice(2).map((c) => writer.place(c.row))]);
    expect(placed).toEqual(calls.map(() => true));
    // The first two went together; the ten that arrived meanwhile went in the next statement (one
    // transaction: the same xmin). A placement's status event is live, published after the commit
    // by CallsApp, not stored (call-events.ts).
    expect(await stored(calls)).toEqual({ calls: 12, statements: 2, transitions: 12, events: 0 });
  });

  it('stores another account’s call while one account’s statement is in flight, and that account’s next calls after it', async () => {
    const writer = new PlacementWriter(sql);
    const other = randomUUID();
    const held = newCall();
    // A transaction holding an uncommitted row with the first call's id: the writer's insert of
    // that id waits for it (ON CONFLICT), so the account's statement stays in flight until then.
    let release: () => void = () => {};
    let inserted: () => void = () => {};
    const rowWritten = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const blocker = sql.begin(async (tx) => {
      await callRepository.placeAll(tx as unknown as Sql, [held.row]);
      inserted();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      throw new Error('rolled back on purpose');
    });
    await rowWritten;
    const first = writer.place(held.row);
    // Sent at the end of the turn: from then on its statement is in flight.
    await new Promise((resolve) => setImmediate(resolve));
    // The account's own next call waits behind that statement.
    const sameAccount = newCall();
    const second = writer.place(sameAccount.row);
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    // Another account's call does not: it is stored while the first statement still waits.
    const elsewhere = { row: { ...newCall().row, account_id: other } };
    expect(await writer.place(elsewhere.row)).toBe(true);
    expect(secondDone).toBe(false);
    expect(await stored([elsewhere])).toMatchObject({ calls: 1, transitions: 1 });
    expect(await stored([held, sameAccount])).toMatchObject({ calls: 0 });
    release();
    await expect(blocker).rejects.toThrow('rolled back on purpose');
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(await stored([held, sameAccount])).toMatchObject({ calls: 2, statements: 2, transitions: 2 });
  });

  it('stores an id once and fails only the call that cannot be stored', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const [first, twice, fine] = [newCall(), newCall(), newCall()];
    const again = { row: { ...twice.row, phone_number: '+14155550999' } };
    const bad = newCall();
    bad.row = { ...bad.row, status: 'no_such_status' as never };
    const outcomes = await Promise.allSettled(
      [first, twice, again, bad, fine].map((c) => writer.place(c.row)),
    );
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed'))).toEqual([
      true,
      true,
      false,
      'failed',
      true,
    ]);
    expect(await stored([first, twice, fine])).toMatchObject({ calls: 3, transitions: 3 });
    expect(await stored([again, bad])).toMatchObject({ calls: 1, transitions: 1 });
    // The first placement of the id is the one stored.
    const [kept] = await sql<{ phone_number: string }[]>`
      SELECT phone_number FROM call.calls WHERE id = ${twice.row.id}`;
    expect(kept!.phone_number).toBe(twice.row.phone_number);
    // A call placed already is not placed again.
    expect(await writer.place(fine.row)).toBe(false);
  });

  it('marks queued calls dialed by their ids, never walking every live call nor the account’s waiting ones', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const template = newCall();
    await writer.place(template.row);
    await accountLimitRepository.set(sql, ACCOUNT, 1000, new Date());
    // Statistics taken while the table held only ended calls, then a backlog of 2,000 queued
    // calls: what a service sees between analyses when a burst arrives.
    const copies = (count: number, status: string) => sql`
      INSERT INTO call.calls SELECT (json_populate_record(c,
        json_build_object('id', gen_random_uuid(), 'status', ${status}::text))).*
      FROM call.calls c CROSS JOIN generate_series(1, ${count}) WHERE c.id = ${template.row.id}`;
    await copies(2000, 'completed');
    await sql`UPDATE call.calls SET status = 'completed' WHERE id = ${template.row.id}`;
    await sql`ANALYZE call.calls`;
    await copies(2000, 'initializing');
    const waiting = await sql<{ id: string }[]>`
      SELECT id FROM call.calls WHERE status = 'initializing' AND dialed_at IS NULL LIMIT 8`;
    const calls = waiting.map((w) => ({ id: w.id, account_id: ACCOUNT }));
    const [before, batch] = [calls.slice(0, 5), calls.slice(5)];
    await sql.begin((tx) => callRepository.markDialed(tx, 'test', before, 2));
    // Index entries returned by scans, as this connection counts them (not flushed yet).
    const indexReads = async (tx: TransactionSql) =>
      new Map(
        (
          await tx<{ index: string; tuples: number }[]>`
            SELECT c.relname AS index, pg_stat_get_xact_tuples_returned(c.oid)::int AS tuples
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'call.calls'::regclass`
        ).map((r) => [r.index, r.tuples]),
      );
    const read = await sql.begin(async (tx) => {
      const start = await indexReads(tx);
      const marked = await callRepository.markDialed(tx, 'test', batch, 2);
      expect(marked.dialed.map((m) => m.id).sort()).toEqual(batch.map((b) => b.id).sort());
      expect(marked.held).toEqual([]);
      expect(marked.accounts).toEqual([{ account_id: ACCOUNT, limit: 1000, known: true, free: 992 }]);
      const end = await indexReads(tx);
      return Object.fromEntries([...end].map(([index, n]) => [index, n - (start.get(index) ?? 0)]));
    });
    expect(read.calls_pkey).toBeGreaterThanOrEqual(3);
    expect(read.calls_live_idx).toBe(0);
    expect(read.calls_account_status_idx ?? 0).toBe(0);
    // The account's dialed calls were counted through its live index: its 5 dialed ones, none of
    // its 2,000 waiting calls nor its ended ones.
    expect(read.calls_account_live_idx).toBeGreaterThanOrEqual(5);
    expect(read.calls_account_live_idx).toBeLessThan(10);
  });

  it('moves calls that change together in one statement, each only from the sequence it knew, with its history and its CALL_ENDED', async () => {
    const [lone, ended, ringing, stale, twice] = Array.from({ length: 5 }, () => newCall());
    const all = [lone!, ended!, ringing!, stale!, twice!];
    await callRepository.placeAll(
      sql,
      all.map((c) => c.row),
    );
    // Marked dialed in the database only: the driver's row still says null, and must not undo it.
    await sql.begin((tx) => callRepository.markDialed(tx, 'test', [ended!.row], 2));
    const at = new Date();
    const ringingRow = (c: ReturnType<typeof newCall>) => ({
      ...c.row,
      status: 'ringing' as const,
      sequence: 2,
    });
    const failedRow = {
      ...ended!.row,
      status: 'failed' as const,
      sequence: 2,
      ended_at: at,
      call_end_reason: 'carrier_failure',
      ended_by: 'system',
      transcript: [{ role: 'agent', text: 'Hello', at: at.toISOString() }],
      owner: null,
    } as never;
    const endedEvent = eventEnvelope({
      subject: `events.call.ended.${ACCOUNT}.${ended!.row.id}`,
      accountId: ACCOUNT,
      data: { call: { id: ended!.row.id } },
    });
    const writer = new TransitionWriter(sql);
    const alone = writer.advance(lone!.row, ringingRow(lone!), at, undefined);
    // The next turn, its statement in flight: the moves that arrive meanwhile go together after it.
    await new Promise((resolve) => setImmediate(resolve));
    const moved = await Promise.all([
      alone,
      writer.advance(ended!.row, failedRow, at, endedEvent),
      writer.advance(ringing!.row, ringingRow(ringing!), at, undefined),
      // Stored at sequence 1, not 3: someone else moved it (as far as this driver can tell).
      writer.advance({ ...stale!.row, sequence: 3 }, { ...ringingRow(stale!), sequence: 4 }, at, undefined),
      writer.advance(twice!.row, ringingRow(twice!), at, undefined),
      writer.advance(twice!.row, { ...ringingRow(twice!), status: 'failed' }, at, undefined),
    ]);
    expect(moved).toEqual([true, true, true, false, true, false]);

    const rows = await sql<
      {
        id: string;
        status: string;
        sequence: number;
        dialed: boolean;
        ended_at: Date | null;
        owner: string | null;
        call_end_reason: string | null;
        transcript: unknown;
        version: string;
      }[]
    >`SELECT id, status, sequence, dialed_at IS NOT NULL AS dialed, ended_at, owner, call_end_reason,
             transcript, xmin::text AS version
      FROM call.calls WHERE id = ANY(${all.map((c) => c.row.id)}::uuid[])`;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const row = (c: ReturnType<typeof newCall>) => byId.get(c.row.id)!;
    expect(row(ended!)).toMatchObject({
      status: 'failed',
      sequence: 2,
      dialed: true,
      owner: null,
      call_end_reason: 'carrier_failure',
      transcript: [{ role: 'agent', text: 'Hello', at: at.toISOString() }],
    });
    expect(row(ended!).ended_at!.getTime()).toBe(at.getTime());
    expect(row(ringing!)).toMatchObject({ status: 'ringing', sequence: 2, owner: 'test', ended_at: null });
    expect(row(twice!)).toMatchObject({ status: 'ringing', sequence: 2 });
    expect(row(stale!)).toMatchObject({ status: 'initializing', sequence: 1 });
    // The first went alone; the four moved after it went together (one transaction: one xmin).
    expect(new Set([ended, ringing, twice].map((c) => row(c!).version)).size).toBe(1);
    expect(row(lone!).version).not.toBe(row(ended!).version);
    expect(await stored([ended!])).toMatchObject({ transitions: 2, events: 1 });
    expect(await stored([ringing!, twice!, lone!])).toMatchObject({ transitions: 6, events: 0 });
    expect(await stored([stale!])).toMatchObject({ transitions: 1, events: 0 });
    const [event] = await sql<
      { payload: unknown }[]
    >`SELECT payload FROM call.outbox WHERE id = ${endedEvent.id}`;
    expect(event!.payload).toEqual(endedEvent);
  });

  it('renews an instance lease in one row, however many calls it drives', async () => {
    const held = Array.from({ length: 5 }, () => newCall());
    await callRepository.placeAll(
      sql,
      held.map((c) => c.row),
    );
    const ids = held.map((c) => c.row.id);
    // A row version's xmin is the transaction that wrote it: unchanged means not rewritten.
    const versions = async () =>
      (
        await sql<
          { v: string }[]
        >`SELECT xmin::text AS v FROM call.calls WHERE id = ANY(${ids}::uuid[]) ORDER BY id`
      ).map((r) => r.v);
    const before = await versions();
    await callRepository.renewLease(sql, 'test', 1);
    await callRepository.renewLease(sql, 'test', 30);
    expect(await versions()).toEqual(before);
    const [lease] = await sql<{ left: number }[]>`
      SELECT extract(epoch FROM lease_until - now())::int AS left FROM call.instances WHERE id = 'test'`;
    expect(lease!.left).toBeGreaterThan(25);
  });

  it('takes over the calls of released, lapsed and long-gone drivers, never those of a live one', async () => {
    const [alive, lapsed, gone, goneNew] = ['alive', 'lapsed', 'gone', 'gone-new'].map(
      (n) => `${n}-${randomUUID().slice(0, 8)}`,
    );
    await sql`INSERT INTO call.instances (id, lease_until) VALUES
      (${alive!}, now() + interval '1 minute'), (${lapsed!}, now() - interval '1 second')`;
    const owned = (owner: string | null, startedAgo: number) => {
      const call = newCall();
      call.row.owner = owner;
      call.row.started_at = new Date(Date.now() - startedAgo);
      return call;
    };
    const calls = {
      alive: owned(alive!, 0),
      lapsed: owned(lapsed!, 0),
      released: owned(null, 0),
      // No lease row: an instance that stopped (or died before its first renewal) an hour ago...
      gone: owned(gone!, 2 * 3_600_000),
      // ...or one that has just started and not renewed yet: left alone for a lease.
      goneNew: owned(goneNew!, 0),
    };
    await callRepository.placeAll(
      sql,
      Object.values(calls).map((c) => c.row),
    );
    const mine = new Set(Object.values(calls).map((c) => c.row.id));
    const claim = async (owner: string, sweep: boolean) =>
      (await callRepository.claimOrphans(sql, owner, 3_600, 1_000, sweep)).filter((r) => mine.has(r.id));
    const claimed = await claim('claimer', false);
    expect(claimed.map((r) => r.id).sort()).toEqual(
      [calls.lapsed, calls.released].map((c) => c.row.id).sort(),
    );
    expect(claimed.every((r) => r.owner === 'claimer')).toBe(true);
    // A call whose driver has no lease row is found only by the sweep, and only a lease after it started.
    await callRepository.renewLease(sql, 'claimer', 60);
    const swept = await claim('sweeper', true);
    expect(swept.map((r) => r.id)).toEqual([calls.gone.row.id]);
    // Claimed calls are not claimed again while their new driver's lease holds.
    await callRepository.renewLease(sql, 'sweeper', 60);
    expect(await claim('other', true)).toEqual([]);
    // A clean stop ends the lease at once: what still names it is an orphan.
    await callRepository.endLease(sql, 'sweeper');
    expect((await claim('other', false)).map((r) => r.id)).toEqual([calls.gone.row.id]);

    // The lapsed instance, its calls taken over, is forgotten once lapsed for a lease; the live one stays.
    await sql`UPDATE call.instances SET lease_until = now() - interval '1 hour' WHERE id = ${lapsed!}`;
    await callRepository.forgetGoneInstances(sql, 60);
    const left = await sql<{ id: string }[]>`
      SELECT id FROM call.instances WHERE id = ANY(${[alive!, lapsed!]}::text[])`;
    expect(left.map((r) => r.id)).toEqual([alive]);
  });
});
