import { randomUUID } from 'node:crypto';
import {
  AppError,
  type ContactRow,
  createLogger,
  createSql,
  E164_PATTERN,
  InProcessBus,
  migrate,
  type Sql,
  systemClock,
} from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignsApp } from '../src/app/campaigns';
import { prepareDue } from '../src/app/preparation';
import { campaignRepository } from '../src/db/campaign-repository';
import { countsFrom } from '../src/db/campaign-rows';
import { contactRepository } from '../src/db/contact-repository';
import { migrations } from '../src/db/migrations';
import { PREPARATION_ATTEMPTS, PREPARE_BATCH } from '../src/domain/lifecycle';

const log = createLogger({
  level: process.env.TEST_LOG_LEVEL ?? 'silent',
  name: 'campaign-preparation-test',
});
const ACCOUNT = randomUUID();
const number = (k: number) => `+1415${2_000_000 + k}`;

/** What the contacts' skip reasons must be: the oracle the SQL is checked against. */
function expectedSkips(contacts: readonly ContactRow[]): (string | null)[] {
  const seen = new Set<unknown>();
  return contacts.map(({ phone }) => {
    if (phone === undefined) return 'missing_phone';
    if (typeof phone !== 'string' || !E164_PATTERN.test(phone)) return 'invalid_phone';
    if (seen.has(phone)) return 'duplicate';
    seen.add(phone);
    return null;
  });
}

/**
 * 12,000 contacts (three steps of preparation): numbers repeating every 7,000 positions (so most
 * duplicates are of a number first seen a step or two before), a number repeated within the first
 * step and another within the last, one contact without a number and one invalid.
 */
function longList(): ContactRow[] {
  const contacts: ContactRow[] = Array.from({ length: 12_000 }, (_, i) => ({ phone: number(i % 7_000), i }));
  contacts[1] = { i: 1 };
  contacts[2] = { phone: 'not a number', i: 2 };
  contacts[20] = { phone: contacts[10]!.phone!, i: 20 };
  contacts[11_500] = { phone: number(50_000), i: 11_500 };
  contacts[11_900] = { phone: number(50_000), i: 11_900 };
  return contacts;
}

describe.each(infraModes())('campaign preparation (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let bus: InProcessBus;
  let app: CampaignsApp;
  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 4, log, applicationName: 'campaign-preparation-test' });
    await migrate(sql, migrations, log);
    bus = new InProcessBus({ requestTimeoutMs: 2_000, log });
    app = new CampaignsApp({ sql, bus, onRunnable: () => {}, clock: systemClock });
  });
  afterAll(async () => {
    await bus?.close();
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  /** A draft (stored directly: its agent check is the bus's business) with `contacts` uploaded. */
  async function uploaded(contacts: readonly ContactRow[], startAt?: string): Promise<string> {
    const id = randomUUID();
    await campaignRepository.insertDraft(sql, ACCOUNT, id, {
      name: 'Preparation',
      agent_id: randomUUID(),
      phone_number: '+14155550100',
      phone_column: 'phone',
      max_concurrent_calls: 5,
      ...(startAt ? { start_at: startAt } : {}),
    });
    // Out of order, as the gateway's concurrent chunks may arrive.
    const offsets = Array.from({ length: Math.ceil(contacts.length / 2_000) }, (_, i) => i * 2_000).reverse();
    for (const offset of offsets) {
      await app.addContacts(ACCOUNT, {
        campaign_id: id,
        offset,
        contacts: contacts.slice(offset, offset + 2_000),
      });
    }
    return id;
  }

  const row = async (id: string) => (await campaignRepository.find(sql, ACCOUNT, id))!;
  const skips = async (id: string) =>
    (
      await sql<{ skip_reason: string | null }[]>`
        SELECT skip_reason FROM campaign.contacts WHERE campaign_id = ${id} ORDER BY position`
    ).map((r) => r.skip_reason);
  const keptNumbers = async (id: string) =>
    (
      await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM campaign.contact_numbers WHERE campaign_id = ${id}`
    )[0]!.n;
  /** The progress events queued for the campaign, oldest first. */
  const progress = (id: string) =>
    sql<{ status: string; sequence: number; skipped: number }[]>`
      SELECT payload->'data'->'campaign'->>'status' AS status, (payload->'data'->>'sequence')::int AS sequence,
             (payload->'data'->'campaign'->'counts'->>'skipped')::int AS skipped
      FROM campaign.outbox WHERE payload->'data'->'campaign'->>'id' = ${id} ORDER BY seq`;

  it('answers a long list preparing after one step; the background steps finish it, duplicates found across steps', async () => {
    const contacts = longList();
    const expected = expectedSkips(contacts);
    const skippedBelow = (end: number) => expected.slice(0, end).filter((r) => r === 'duplicate').length + 2;
    const id = await uploaded(contacts);

    const started = await app.start(ACCOUNT, id, contacts.length);
    expect(started).toMatchObject({ status: 'preparing', started_at: null });
    expect(started.counts).toMatchObject({ total: 12_000, skipped: skippedBelow(PREPARE_BATCH) });
    expect(started.counts.pending).toBe(12_000 - started.counts.skipped);
    // Repeatable: a start again answers the campaign as it is, no second step.
    expect((await app.start(ACCOUNT, id, contacts.length)).counts).toEqual(started.counts);
    expect((await row(id)).prepared_through).toBe(PREPARE_BATCH);

    expect(await prepareDue(sql, 10, log)).toBe(true);
    const second = await app.get(ACCOUNT, id);
    expect(second).toMatchObject({ status: 'preparing', counts: { skipped: skippedBelow(10_000) } });

    expect(await prepareDue(sql, 10, log)).toBe(false);
    const prepared = await app.get(ACCOUNT, id);
    expect(prepared.status).toBe('running');
    expect(prepared.started_at).not.toBeNull();
    const skipped = expected.filter((r) => r !== null).length;
    expect(prepared.counts).toMatchObject({ total: 12_000, pending: 12_000 - skipped, skipped });
    expect(prepared.counts).toEqual(countsFrom(await contactRepository.countsByState(sql, id)));
    expect(await skips(id)).toEqual(expected);
    expect(await keptNumbers(id)).toBe(0);
    expect(await progress(id)).toEqual([
      { status: 'preparing', sequence: 1, skipped: skippedBelow(PREPARE_BATCH) },
      { status: 'preparing', sequence: 2, skipped: skippedBelow(10_000) },
      { status: 'running', sequence: 3, skipped },
    ]);
    expect(await prepareDue(sql, 10, log)).toBe(false);
    expect((await row(id)).sequence).toBe(3);
  });

  it('never repeats or skips a step when two replicas step the same campaigns at once', async () => {
    const contacts = longList();
    const ids = [await uploaded(contacts), await uploaded(contacts)];
    for (const id of ids) await app.start(ACCOUNT, id, contacts.length);
    const replica = async () => {
      while (await prepareDue(sql, 10, log)) {}
    };
    await Promise.all([replica(), replica()]);
    // A replica that skipped a campaign the other held says nothing of it: look again.
    await replica();
    for (const id of ids) {
      expect((await row(id)).status).toBe('running');
      expect(await skips(id)).toEqual(expectedSkips(contacts));
      expect((await progress(id)).map((p) => p.sequence)).toEqual([1, 2, 3]);
    }
  });

  it('starts a list of one step scheduled or running at once', async () => {
    const contacts: ContactRow[] = [
      { phone: number(1) },
      { phone: number(2) },
      { phone: number(1) },
      { name: 'none' },
    ];
    const later = await uploaded(contacts, new Date(Date.now() + 3_600_000).toISOString());
    expect(await app.start(ACCOUNT, later, 4)).toMatchObject({
      status: 'scheduled',
      counts: { total: 4, pending: 2, skipped: 2 },
    });
    const now = await uploaded(contacts);
    expect(await app.start(ACCOUNT, now, 4)).toMatchObject({ status: 'running', counts: { pending: 2 } });
    expect(await skips(now)).toEqual([null, null, 'duplicate', 'missing_phone']);
    // Every contact skipped: it completes in its start.
    const none = await uploaded([{ name: 'a' }, { phone: '123' }]);
    expect(await app.start(ACCOUNT, none, 2)).toMatchObject({ status: 'completed', counts: { skipped: 2 } });
  });

  it('cancels a preparing campaign (the background leaves it, its numbers go); pause and resume are 409', async () => {
    const contacts = longList();
    const id = await uploaded(contacts);
    await app.start(ACCOUNT, id, contacts.length);
    for (const operation of ['pause', 'resume'] as const) {
      const refused = await app.operate(ACCOUNT, id, operation).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({
        code: 'INVALID_STATE',
        message: `Cannot ${operation} a campaign that is preparing (status: preparing)`,
      });
    }
    const cancelled = await app.operate(ACCOUNT, id, 'cancel');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.counts).toMatchObject({ total: 12_000, pending: 0 });
    expect(cancelled.counts.cancelled + cancelled.counts.skipped).toBe(12_000);
    expect(await keptNumbers(id)).toBe(0);
    expect(await prepareDue(sql, 10, log)).toBe(false);
    expect(await row(id)).toMatchObject({ status: 'cancelled', prepared_through: PREPARE_BATCH });
  });

  /**
   * Makes every insert of the campaign's numbers (each step of its preparation does some) fail
   * with `sqlState`, as PostgreSQL would fail a step; `null` lifts it.
   */
  async function refuseSteps(id: string, sqlState: string | null): Promise<void> {
    await sql.unsafe(`
      CREATE OR REPLACE FUNCTION campaign.test_refuse_step() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = TG_ARGV[0]; END $$`);
    await sql.unsafe(`DROP TRIGGER IF EXISTS refuse_step ON campaign.contact_numbers`);
    if (sqlState === null) return;
    await sql.unsafe(`
      CREATE TRIGGER refuse_step BEFORE INSERT ON campaign.contact_numbers FOR EACH ROW
      WHEN (NEW.campaign_id = '${id}') EXECUTE FUNCTION campaign.test_refuse_step('${sqlState}')`);
  }

  it('fails a preparation whose steps keep failing: cancelled with the reason on it, progress published; an error a retry gets past only retries', async () => {
    const contacts = longList();
    const id = await uploaded(contacts);
    await app.start(ACCOUNT, id, contacts.length);
    try {
      // A serialization failure: the step is taken again, as often as it takes, and never counted.
      await refuseSteps(id, '40001');
      for (let i = 0; i <= PREPARATION_ATTEMPTS; i++) await prepareDue(sql, 10, log);
      expect(await row(id)).toMatchObject({ status: 'preparing', preparation_failures: 0 });

      // A check violation: counted; a step that then succeeds clears the count.
      await refuseSteps(id, '23514');
      await prepareDue(sql, 10, log);
      expect(await row(id)).toMatchObject({ preparation_failures: 1, prepared_through: PREPARE_BATCH });
      await refuseSteps(id, null);
      expect(await prepareDue(sql, 10, log)).toBe(true);
      expect(await row(id)).toMatchObject({ preparation_failures: 0, prepared_through: 2 * PREPARE_BATCH });

      await refuseSteps(id, '23514');
      for (let i = 1; i < PREPARATION_ATTEMPTS; i++) {
        await prepareDue(sql, 10, log);
        expect(await row(id)).toMatchObject({ status: 'preparing', preparation_failures: i });
      }
      expect(await prepareDue(sql, 10, log)).toBe(false);
    } finally {
      await refuseSteps(id, null);
    }
    const failed = await app.get(ACCOUNT, id);
    expect(failed).toMatchObject({ status: 'cancelled', started_at: null });
    expect(failed.failure_reason).toMatch(
      /^Preparation failed: .*\(database error 23514\)\. Nobody was dialed/,
    );
    expect(failed.finished_at).not.toBeNull();
    expect(failed.counts).toMatchObject({ total: 12_000, pending: 0, in_progress: 0 });
    expect(failed.counts).toEqual(countsFrom(await contactRepository.countsByState(sql, id)));
    expect(await keptNumbers(id)).toBe(0);
    expect((await progress(id)).map((p) => [p.status, p.sequence])).toEqual([
      ['preparing', 1],
      ['preparing', 2],
      ['cancelled', 3],
    ]);
    // Out of the background's work for good; a campaign that did not fail has no reason.
    expect(await prepareDue(sql, 10, log)).toBe(false);
    expect((await row(id)).sequence).toBe(3);
    const fine = await uploaded([{ phone: number(1) }]);
    expect(await app.start(ACCOUNT, fine, 1)).not.toHaveProperty('failure_reason');
  });

  it('refuses a start with a chunk missing and a chunk after the start; a chunk sent twice counts once; discard drops drafts only', async () => {
    const id = await uploaded([{ phone: number(1) }, { phone: number(2) }]);
    // Three contacts, but at positions 0, 1 and 3.
    await app.addContacts(ACCOUNT, { campaign_id: id, offset: 3, contacts: [{ phone: number(3) }] });
    await expect(app.start(ACCOUNT, id, 3)).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Expected 3 contacts at positions 0..2, received 3',
    });
    await expect(app.start(ACCOUNT, id, 4)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await row(id)).status).toBe('draft');
    expect(await app.discard(ACCOUNT, id)).toEqual({ discarded: true });
    expect(await campaignRepository.find(sql, ACCOUNT, id)).toBeUndefined();
    expect(await skips(id)).toEqual([]);

    const twice = await uploaded([{ phone: number(1) }, { phone: number(2) }]);
    await app.addContacts(ACCOUNT, { campaign_id: twice, offset: 0, contacts: [{ phone: number(1) }] });
    expect((await row(twice)).counts).toMatchObject({ total: 2, pending: 2 });
    await app.start(ACCOUNT, twice, 2);
    await expect(
      app.addContacts(ACCOUNT, { campaign_id: twice, offset: 2, contacts: [{ phone: number(3) }] }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE', message: 'The campaign has started already' });
    expect(await app.discard(ACCOUNT, twice)).toEqual({ discarded: false });
    expect(await app.get(ACCOUNT, twice)).toMatchObject({ status: 'running', counts: { total: 2 } });
    // Another account's draft is not this account's to discard.
    const other = await uploaded([{ phone: number(1) }]);
    expect(await app.discard(randomUUID(), other)).toEqual({ discarded: false });
    expect((await row(other)).status).toBe('draft');
  });
});
