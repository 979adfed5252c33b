import {
  type CallOutcome,
  type ContactState,
  type PageStart,
  pageEnd,
  pageRows,
  type SkipReason,
  type Sql,
  type TransactionSql,
} from '@voice/shared';
import { CONTACT_TIMEZONE_KEY } from '../domain/calling-window';
import type { ClassifiedContact } from '../domain/contacts';
import { type CampaignRow, CONTACT_COLUMNS, type ContactRowDb, type ContactView } from './campaign-rows';

type Db = Sql | TransactionSql;

/** An unconfirmed placement, with what placing it again needs from its campaign. */
export type UnplacedContact = ContactRowDb &
  Pick<CampaignRow, 'account_id' | 'agent_id'> & { source_number: string };

/** A due pending contact as a calling window judges it: its number and its `timezone` key. */
export interface DueCandidate {
  /** Its ctid, as text. */
  row_id: string;
  position: number;
  phone_number: string | null;
  timezone: unknown;
}

/**
 * Due pending contacts in position order, read through the two partial indexes that leave out
 * the ones waiting for a later time (migration 006): contacts never deferred, and waiting ones
 * whose time has come.
 */
const due = (tx: TransactionSql, campaignId: string, limit: number, now: Date) => tx`
  SELECT row_id, position FROM (
    (SELECT ctid AS row_id, position FROM campaign.contacts
     WHERE campaign_id = ${campaignId} AND state = 'pending' AND next_attempt_at IS NULL
     ORDER BY position LIMIT ${limit})
    UNION ALL
    (SELECT ctid AS row_id, position FROM campaign.contacts
     WHERE campaign_id = ${campaignId} AND state = 'pending' AND next_attempt_at <= ${now}
     ORDER BY next_attempt_at LIMIT ${limit})) due
  ORDER BY position LIMIT ${limit}`;

/** What a claim sets: in progress, one more attempt, under the call id chosen (due.call_id). */
const claimed = (tx: TransactionSql) => tx`
  state = 'in_progress', attempts = k.attempts + 1, current_call_id = due.call_id,
  call_ids = k.call_ids || due.call_id, dispatched_at = now(), placed_at = NULL,
  next_attempt_at = NULL, retry_at = NULL, updated_at = now()`;

/**
 * The contacts table. Every writer that changes a contact's state holds its campaign's row lock
 * (taken through campaignRepository), so counts and the concurrency cap are exact across replicas.
 */
export const contactRepository = {
  /**
   * One chunk, in one statement (a JSON array expanded by jsonb_to_recordset: one parameter
   * whatever the chunk's length). A chunk sent again changes nothing (same positions). Answers how
   * many contacts it stored, pending and skipped.
   */
  async insertChunk(
    db: Db,
    campaignId: string,
    offset: number,
    contacts: readonly ClassifiedContact[],
  ): Promise<{ pending: number; skipped: number }> {
    const rows = contacts.map((c, i) => ({
      position: offset + i,
      phone_number: c.phone_number,
      data: c.data,
      state: c.skip_reason ? 'skipped' : 'pending',
      skip_reason: c.skip_reason,
    }));
    const [stored] = await db<{ pending: number; skipped: number }[]>`
      WITH inserted AS (
        INSERT INTO campaign.contacts (campaign_id, position, phone_number, data, state, skip_reason)
        SELECT ${campaignId}, r.position, r.phone_number, r.data, r.state, r.skip_reason
        FROM jsonb_to_recordset(${db.json(rows as never)})
          AS r(position integer, phone_number text, data jsonb, state text, skip_reason text)
        ON CONFLICT (campaign_id, position) DO NOTHING
        RETURNING state)
      SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending,
             count(*) FILTER (WHERE state = 'skipped')::int AS skipped
      FROM inserted`;
    return stored!;
  },

  /** The highest position stored (an index lookup): with the count, proves no chunk is missing. */
  async lastPosition(db: Db, campaignId: string): Promise<number | undefined> {
    const [row] = await db<{ position: number }[]>`
      SELECT position FROM campaign.contacts WHERE campaign_id = ${campaignId}
      ORDER BY position DESC LIMIT 1`;
    return row?.position;
  },

  /**
   * The pending contacts at positions from..to-1 whose number came earlier are skipped as
   * `duplicate`: each number is dialed once, at its first occurrence. Ranges must be checked in
   * position order: contact_numbers keeps each number's first position from earlier ranges, and
   * this range's first occurrences join it here (a conflict on its key means the number is there
   * already: an index lookup by construction, not a plan the planner might choose otherwise on a
   * table that grew faster than its statistics). Answers how many were skipped.
   */
  async skipDuplicates(tx: TransactionSql, campaignId: string, from: number, to: number): Promise<number> {
    const range = tx`campaign_id = ${campaignId} AND position >= ${from} AND position < ${to} AND state = 'pending'`;
    const skipped = await tx`
      WITH firsts AS (
        INSERT INTO campaign.contact_numbers (campaign_id, phone_number, position)
        SELECT DISTINCT ON (phone_number) campaign_id, phone_number, position
        FROM campaign.contacts WHERE ${range} ORDER BY phone_number, position
        ON CONFLICT (campaign_id, phone_number) DO NOTHING
        RETURNING position)
      UPDATE campaign.contacts SET state = 'skipped', skip_reason = 'duplicate', updated_at = now()
      WHERE ${range} AND position NOT IN (SELECT position FROM firsts)`;
    return skipped.count;
  },

  /** The numbers a preparation kept (skipDuplicates), once it is over. */
  async forgetNumbers(tx: TransactionSql, campaignId: string): Promise<void> {
    await tx`DELETE FROM campaign.contact_numbers WHERE campaign_id = ${campaignId}`;
  },

  async countsByState(db: Db, campaignId: string): Promise<{ state: string; n: number }[]> {
    return db<{ state: string; n: number }[]>`
      SELECT state, count(*)::int AS n FROM campaign.contacts WHERE campaign_id = ${campaignId}
      GROUP BY state`;
  },

  /** Every number the campaign holds (any state): what contacts added later are duplicates of. */
  async numbers(tx: TransactionSql, campaignId: string): Promise<string[]> {
    const rows = await tx<{ phone_number: string }[]>`
      SELECT phone_number FROM campaign.contacts
      WHERE campaign_id = ${campaignId} AND phone_number IS NOT NULL`;
    return rows.map((r) => r.phone_number);
  },

  /**
   * Pending contacts waiting for a time, judged again (a PATCH changed the calling window): each is
   * due again at its retry's own time (retry_at: the backoff, never shortened), or at once when it
   * has none (never dialed: only a window's opening made it wait). The next claim applies the new
   * window to them. Contacts waiting for their backoff are left as they are. Answers how many.
   */
  async rejudgeWindowWaits(tx: TransactionSql, campaignId: string): Promise<number> {
    const released = await tx`
      UPDATE campaign.contacts SET next_attempt_at = retry_at, updated_at = now()
      WHERE campaign_id = ${campaignId} AND state = 'pending' AND next_attempt_at IS NOT NULL
        AND next_attempt_at IS DISTINCT FROM retry_at`;
    return released.count;
  },

  /** Contacts whose call is not final yet: the number the cap is checked against. */
  async inFlight(tx: TransactionSql, campaignId: string): Promise<number> {
    const [row] = await tx<{ n: number }[]>`
      SELECT count(*)::int AS n FROM campaign.contacts
      WHERE campaign_id = ${campaignId} AND state = 'in_progress'`;
    return row?.n ?? 0;
  },

  /**
   * Claims up to `limit` due pending contacts (due at `now`, the service's clock) in position
   * order: each is in progress from now on, with its next attempt's call id chosen here
   * (current_call_id, appended to call_ids).
   *
   * The rows found are updated by their physical address (ctid: stable here, as every writer of
   * a pending contact holds the campaign lock the caller holds), not joined back by position:
   * on a campaign whose contacts arrived after the table's statistics were taken, the planner
   * believed the campaign had a handful of rows and drove the join from a scan of all of them,
   * 0.2 s per claim at 100,000 contacts instead of 0.3 ms.
   */
  async claimDue(tx: TransactionSql, campaignId: string, limit: number, now: Date): Promise<ContactRowDb[]> {
    return tx<ContactRowDb[]>`
      WITH due AS MATERIALIZED (
        SELECT row_id, gen_random_uuid() AS call_id FROM (${due(tx, campaignId, limit, now)}) d)
      UPDATE campaign.contacts k SET ${claimed(tx)}
      FROM due WHERE k.ctid = due.row_id AND k.state = 'pending'
      RETURNING k.*`;
  },

  /**
   * Up to `limit` due pending contacts in position order, unclaimed, with what deciding their
   * calling window needs: for a windowed campaign, which claims (claimRows) the ones inside it and
   * defers the others. Read under the campaign lock, so the row ids stay valid until commit.
   */
  async dueCandidates(
    tx: TransactionSql,
    campaignId: string,
    limit: number,
    now: Date,
  ): Promise<DueCandidate[]> {
    return tx<DueCandidate[]>`
      SELECT d.row_id::text AS row_id, d.position, k.phone_number, k.data -> ${CONTACT_TIMEZONE_KEY} AS timezone
      FROM (${due(tx, campaignId, limit, now)}) d JOIN campaign.contacts k ON k.ctid = d.row_id
      ORDER BY d.position`;
  },

  /** Claims these due candidates as claimDue does (under the same campaign lock). */
  async claimRows(
    tx: TransactionSql,
    campaignId: string,
    rowIds: readonly string[],
  ): Promise<ContactRowDb[]> {
    if (rowIds.length === 0) return [];
    return tx<ContactRowDb[]>`
      WITH due AS MATERIALIZED (
        SELECT row_id, gen_random_uuid() AS call_id FROM unnest(${rowIds as string[]}::tid[]) AS row_id)
      UPDATE campaign.contacts k SET ${claimed(tx)}
      FROM due WHERE k.ctid = due.row_id AND k.campaign_id = ${campaignId} AND k.state = 'pending'
      RETURNING k.*`;
  },

  /**
   * Due candidates outside their calling window wait, still pending, until it opens: their
   * next_attempt_at takes them out of the due set (and its index) until then.
   */
  async defer(
    tx: TransactionSql,
    campaignId: string,
    rows: readonly { rowId: string; until: Date }[],
  ): Promise<void> {
    const byTime = new Map<number, string[]>();
    for (const { rowId, until } of rows) {
      const ids = byTime.get(until.getTime()) ?? [];
      ids.push(rowId);
      byTime.set(until.getTime(), ids);
    }
    // One statement per opening: the contacts of a list open at a few instants (their zones').
    await Promise.all(
      [...byTime].map(
        ([at, ids]) => tx`
          UPDATE campaign.contacts SET next_attempt_at = ${new Date(at)}, updated_at = now()
          WHERE ctid = ANY(${ids}::tid[]) AND campaign_id = ${campaignId} AND state = 'pending'`,
      ),
    );
  },

  /**
   * The call service confirmed the placement: no re-send needed. (Only a contact still in
   * progress needs it; the state also makes either index's lookup exact, see endAttempt.)
   */
  async markPlaced(db: Db, campaignId: string, position: number, callId: string): Promise<void> {
    await db`
      UPDATE campaign.contacts SET placed_at = now()
      WHERE campaign_id = ${campaignId} AND state = 'in_progress' AND position = ${position}
        AND current_call_id = ${callId} AND placed_at IS NULL`;
  },

  /** The in-flight contact of a call (none once its outcome was recorded). */
  async findInFlight(
    tx: TransactionSql,
    campaignId: string,
    callId: string,
  ): Promise<ContactRowDb | undefined> {
    const [row] = await tx<ContactRowDb[]>`
      SELECT * FROM campaign.contacts
      WHERE current_call_id = ${callId} AND state = 'in_progress' AND campaign_id = ${campaignId}`;
    return row;
  },

  /**
   * Ends the attempt of a contact in progress: a final state, or back to pending until
   * `nextAttemptAt`. The state is in the lookup so that both indexes that lead with the campaign
   * find the row exactly: on a campaign whose contacts outgrew the table's statistics the planner
   * took contacts_state_idx for (campaign, position) alone and read every contact's entry.
   */
  async endAttempt(
    tx: TransactionSql,
    campaignId: string,
    position: number,
    change: {
      state: CallOutcome | 'pending' | 'skipped';
      nextAttemptAt: Date | null;
      failureReason?: string;
      skipReason?: SkipReason;
      /** The call service refused this placement: no call exists, so the attempt is taken back. */
      refusedCallId?: string;
    },
  ): Promise<void> {
    const refused = change.refusedCallId ?? null;
    await tx`
      UPDATE campaign.contacts SET state = ${change.state}, next_attempt_at = ${change.nextAttemptAt},
        retry_at = ${change.nextAttemptAt}, failure_reason = ${change.failureReason ?? null},
        skip_reason = ${change.skipReason ?? null}, attempts = attempts - ${refused === null ? 0 : 1},
        call_ids = CASE WHEN ${refused}::uuid IS NULL THEN call_ids ELSE array_remove(call_ids, ${refused}::uuid) END,
        updated_at = now()
      WHERE campaign_id = ${campaignId} AND state = 'in_progress' AND position = ${position}`;
  },

  /** Cancels the contacts not dialed yet; answers how many. */
  async cancelPending(tx: TransactionSql, campaignId: string): Promise<number> {
    const cancelled = await tx`
      UPDATE campaign.contacts SET state = 'cancelled', next_attempt_at = NULL, updated_at = now()
      WHERE campaign_id = ${campaignId} AND state = 'pending'`;
    return cancelled.count;
  },

  /**
   * In-progress contacts whose placement was never confirmed within `leaseMs` (the replica that
   * claimed them died, or the call service did not answer): claimed again for `leaseMs`, with
   * SKIP LOCKED so replicas re-send different ones.
   */
  async claimUnplaced(db: Db, leaseMs: number, limit: number): Promise<UnplacedContact[]> {
    return db<UnplacedContact[]>`
      WITH stale AS (
        SELECT campaign_id, position FROM campaign.contacts
        WHERE state = 'in_progress' AND placed_at IS NULL
          AND dispatched_at < now() - make_interval(secs => ${leaseMs / 1000})
        ORDER BY dispatched_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE campaign.contacts k SET dispatched_at = now()
      FROM stale, campaign.campaigns c
      WHERE k.campaign_id = stale.campaign_id AND k.position = stale.position AND c.id = k.campaign_id
      RETURNING k.*, c.account_id, c.agent_id, c.phone_number AS source_number`;
  },

  /**
   * A page of a campaign's contacts in position order, from `start` (pageStart of the list
   * 'campaign_contacts', its key the position: keyset after a cursor, offset for a page number),
   * reading the columns the public form needs only. Served by the primary key, or
   * contacts_state_idx with a state.
   */
  async page(
    db: Db,
    campaignId: string,
    state: ContactState | undefined,
    start: PageStart,
    pageSize: number,
  ): Promise<{ rows: ContactView[]; nextCursor: string | null }> {
    // A cursor's position that is no integer (1.5, 1e300) fails the comparison's cast: pageRows
    // answers that as the bad cursor it is.
    const rows = await pageRows(
      start,
      db<ContactView[]>`
        SELECT ${db(CONTACT_COLUMNS)} FROM campaign.contacts
        WHERE campaign_id = ${campaignId} ${state ? db`AND state = ${state}` : db``}
          ${start.after ? db`AND position > ${start.after[0]!}` : db``}
        ORDER BY position LIMIT ${start.limit} OFFSET ${start.offset}`,
    );
    return pageEnd(rows, start, pageSize, (r) => [r.position]);
  },
};
