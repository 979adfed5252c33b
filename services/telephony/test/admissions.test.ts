import { randomUUID } from 'node:crypto';
import { createSql, type Sql } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrunkAdmissions } from '../src/app/admissions';
import { TrunksApp } from '../src/app/trunks';

describe.each(infraModes())('trunk admission in PostgreSQL (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, {
      max: 6,
      log: pino({ level: 'silent' }),
      applicationName: 'telephony-admissions-test',
    });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  async function trunk(limits: { max_concurrent_calls: number | null; calls_per_second: number | null }) {
    const account = randomUUID();
    const created = await new TrunksApp(sql).create(account, {
      name: 'Limited',
      uri: 'sip:trunk.example.com',
      numbers: [],
      is_default: false,
      ring_timeout_seconds: 30,
      codecs: ['PCMU'],
      ...limits,
    });
    return { account, id: created.id };
  }

  it('counts the calls of every instance against max_concurrent_calls, racing included', async () => {
    const { account, id } = await trunk({ max_concurrent_calls: 3, calls_per_second: null });
    const a = new TrunkAdmissions(sql, 'instance-a');
    const b = new TrunkAdmissions(sql, 'instance-b');
    const calls = Array.from({ length: 8 }, () => randomUUID());
    const decisions = await Promise.all(calls.map((call, i) => (i % 2 ? a : b).tryAdmit(account, id, call)));
    const admitted = calls.filter((_, i) => decisions[i]!.outcome === 'admit');
    expect(admitted).toHaveLength(3);
    expect(
      decisions
        .filter((d) => d.outcome === 'wait')
        .every((d) => d.outcome === 'wait' && d.reason === 'max_concurrent_calls'),
    ).toBe(true);
    // A call ending frees its slot for the next, whichever instance asks.
    await a.release(admitted[0]!);
    expect(await b.tryAdmit(account, id, randomUUID())).toMatchObject({ outcome: 'admit' });
    expect(await a.tryAdmit(account, id, randomUUID())).toMatchObject({ outcome: 'wait' });
  });

  it('paces starts by calls_per_second across instances', async () => {
    const { account, id } = await trunk({ max_concurrent_calls: null, calls_per_second: 0.5 });
    const a = new TrunkAdmissions(sql, 'instance-a');
    const b = new TrunkAdmissions(sql, 'instance-b');
    const first = await a.tryAdmit(account, id, randomUUID());
    expect(first).toMatchObject({ outcome: 'admit' });
    const second = await b.tryAdmit(account, id, randomUUID());
    expect(second).toMatchObject({ outcome: 'wait', reason: 'calls_per_second' });
    if (first.outcome !== 'admit' || second.outcome !== 'wait') return;
    expect(second.retryAt).toBe(first.nextDialAt);
  });

  it('frees an instance\u2019s slots when it stops, and refuses an unknown trunk', async () => {
    const { account, id } = await trunk({ max_concurrent_calls: 1, calls_per_second: null });
    const a = new TrunkAdmissions(sql, `instance-${randomUUID()}`);
    expect(await a.tryAdmit(account, id, randomUUID())).toMatchObject({ outcome: 'admit' });
    expect(await a.tryAdmit(account, id, randomUUID())).toMatchObject({ outcome: 'wait' });
    expect(await a.releaseAll()).toBe(1);
    expect(await a.tryAdmit(account, id, randomUUID())).toMatchObject({ outcome: 'admit' });
    await expect(a.tryAdmit(randomUUID(), id, randomUUID())).rejects.toMatchObject({
      code: 'SIP_TRUNK_NOT_FOUND',
    });
  });
});
