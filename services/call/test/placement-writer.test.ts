import { randomUUID } from 'node:crypto';
import { createLogger, createSql, eventEnvelope, migrate, type Sql } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRepository, newCallRow } from '../src/db/call-repository';
import { migrations } from '../src/db/migrations';
import { PlacementWriter } from '../src/db/placement-writer';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'placement-writer-test' });
const ACCOUNT = randomUUID();
const AGENT = randomUUID();

function newCall(id: string = randomUUID()) {
  const now = new Date();
  const row = newCallRow(
    ACCOUNT,
    {
      id,
      agent_id: AGENT,
      agent_snapshot: {
        id: AGENT,
        name: 'Riley',
        agent_type: 'real_estate_lead_qualifier',
        industry: null,
        goal: 'Qualify the lead',
        collects: [],
        language: 'en',
        voice: 'alloy',
        ai_model: 'gpt-4o',
        start_flow: 'Hi',
        end_flow: 'Bye',
        prompt_hash: 'hash',
        prompt_version_id: null,
      },
      campaign_id: null,
      phone_number: '+14155550123',
      source_number: '+14155550100',
      metadata: { n: 1 },
      started_at: now,
      prompt_version_id: null,
      prompt_hash: 'hash',
      owner: 'test',
      lease_until: now,
    },
    now,
  );
  const event = eventEnvelope({
    subject: `events.call.status.${ACCOUNT}.${id}`,
    accountId: ACCOUNT,
    data: { id },
  });
  return { row, event };
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
               WHERE id = ANY(${calls.map((c) => c.event.id)}::uuid[])) AS events`;
    return row!;
  }

  it('stores the calls that arrive while a statement is in flight together, each with its transition and event', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const calls = Array.from({ length: 12 }, () => newCall());
    const placed = await Promise.all(calls.map((c) => writer.place(c.row, c.event)));
    expect(placed).toEqual(calls.map(() => true));
    // The first went alone; the eleven that arrived meanwhile went in one statement (one
    // transaction: the same xmin).
    expect(await stored(calls)).toEqual({ calls: 12, statements: 2, transitions: 12, events: 12 });
  });

  it('stores an id once and fails only the call that cannot be stored', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const [first, twice, fine] = [newCall(), newCall(), newCall()];
    const again = { row: twice.row, event: newCall(twice.row.id).event };
    const bad = newCall();
    bad.row = { ...bad.row, status: 'no_such_status' as never };
    const outcomes = await Promise.allSettled(
      [first, twice, again, bad, fine].map((c) => writer.place(c.row, c.event)),
    );
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed'))).toEqual([
      true,
      true,
      false,
      'failed',
      true,
    ]);
    expect(await stored([first, twice, fine])).toMatchObject({ calls: 3, transitions: 3, events: 3 });
    expect(await stored([again, bad])).toMatchObject({ calls: 1, events: 0 });
    // A call placed already is not placed again.
    expect(await writer.place(fine.row, newCall(fine.row.id).event)).toBe(false);
  });

  it('marks queued calls dialed by their ids, never walking every live call; marking and renewing leases are HOT updates', async () => {
    const writer = new PlacementWriter(sql, { concurrency: 1 });
    const template = newCall();
    await writer.place(template.row, template.event);
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
    const batch = await sql<{ id: string }[]>`
      SELECT id FROM call.calls WHERE status = 'initializing' AND dialed_at IS NULL LIMIT 3`;
    const reads = await sql.begin(async (tx) => {
      const marked = await callRepository.markDialed(
        tx,
        'test',
        batch.map((b) => b.id),
      );
      expect(marked.map((m) => m.id).sort()).toEqual(batch.map((b) => b.id).sort());
      // Marking changes no indexed column, and pages keep room (fillfactor): HOT updates.
      const [hot] = await tx<{ n: number }[]>`
        SELECT pg_stat_get_xact_tuples_hot_updated('call.calls'::regclass)::int AS n`;
      expect(hot!.n).toBe(3);
      return tx<{ index: string; tuples: number }[]>`
        SELECT c.relname AS index, pg_stat_get_xact_tuples_returned(c.oid)::int AS tuples
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'call.calls'::regclass`;
    });
    // Renewing leases changes no indexed column either (the live index is keyed on started_at).
    const others = await sql<{ id: string }[]>`
      SELECT id FROM call.calls WHERE status = 'initializing' AND dialed_at IS NULL LIMIT 3`;
    const renewedHot = await sql.begin(async (tx) => {
      await callRepository.renewLeases(
        tx,
        'test',
        others.map((o) => o.id),
        30,
      );
      const [hot] = await tx<{ n: number }[]>`
        SELECT pg_stat_get_xact_tuples_hot_updated('call.calls'::regclass)::int AS n`;
      return hot!.n;
    });
    expect(renewedHot).toBe(3);
    const read = Object.fromEntries(reads.map((r) => [r.index, r.tuples]));
    expect(read.calls_pkey).toBeGreaterThanOrEqual(3);
    expect(read.calls_live_idx).toBe(0);
  });
});
