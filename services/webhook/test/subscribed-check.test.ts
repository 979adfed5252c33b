import { randomUUID } from 'node:crypto';
import { createLogger, createSql, type EndpointEventKind, migrate, type Sql } from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscribedCheck } from '../src/app/subscribed-check';
import { endpointRepository } from '../src/db/endpoints';
import { migrations } from '../src/db/migrations';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'subscribed-check-test' });

describe.each(infraModes())('which events have an endpoint (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 2, log, applicationName: 'subscribed-check-test' });
    await migrate(sql, migrations, log);
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  const endpoint = (accountId: string, events: EndpointEventKind[]) =>
    endpointRepository.insert(sql, {
      id: randomUUID(),
      account_id: accountId,
      url: 'https://hooks.example.com/in',
      events,
      description: null,
      secret: 'whsec_test',
    });

  it('answers the questions of one turn, and those asked while a read is in flight, each in one statement, each rightly', async () => {
    const [subscribed, disabled, none] = [randomUUID(), randomUUID(), randomUUID()];
    await endpoint(subscribed, ['CALL_ENDED', 'CALL_RINGING']);
    const off = await endpoint(disabled, ['CALL_ENDED']);
    await endpointRepository.update(sql, disabled, off.id, { enabled: false });
    const reads: number[] = [];
    const check = new SubscribedCheck(sql, (pairs) => {
      reads.push(pairs.length);
      return endpointRepository.subscribed(sql, pairs);
    });
    const asked: [string, EndpointEventKind, boolean][] = [
      [subscribed, 'CALL_ENDED', true],
      [subscribed, 'CALL_RINGING', true],
      [subscribed, 'CALL_ANSWERED', false],
      [disabled, 'CALL_ENDED', false],
      [none, 'CALL_ENDED', false],
      [subscribed, 'CALL_ENDED', true],
    ];
    const first = asked.map(([account, kind]) => check.has(account, kind));
    // Sent at the end of the turn; what is asked while it is in flight goes in the next read.
    await new Promise((resolve) => setImmediate(resolve));
    const second = asked.map(([account, kind]) => check.has(account, kind));
    expect(await Promise.all(first)).toEqual(asked.map(([, , found]) => found));
    expect(await Promise.all(second)).toEqual(asked.map(([, , found]) => found));
    expect(reads).toEqual([asked.length, asked.length]);
    // A read starts after its question: an endpoint added since the last answer is seen.
    await endpoint(none, ['CALL_ENDED']);
    expect(await check.has(none, 'CALL_ENDED')).toBe(true);
  });

  it('fails the questions of a read that fails, and answers later ones', async () => {
    let fail = true;
    const check = new SubscribedCheck(sql, (pairs) => {
      if (fail) return Promise.reject(new Error('database went away'));
      return endpointRepository.subscribed(sql, pairs);
    });
    const account = randomUUID();
    await expect(
      Promise.all([check.has(account, 'CALL_ENDED'), check.has(account, 'CALL_RINGING')]),
    ).rejects.toThrow('database went away');
    fail = false;
    await endpoint(account, ['CALL_RINGING']);
    expect(await Promise.all([check.has(account, 'CALL_ENDED'), check.has(account, 'CALL_RINGING')])).toEqual(
      [false, true],
    );
  });
});
