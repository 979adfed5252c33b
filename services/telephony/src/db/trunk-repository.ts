import {
  afterNewestFirst,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageRows,
  pageStart,
  type Sql,
  type TransactionSql,
} from '@voice/shared';
import type { TrunkFields, TrunkListRow, TrunkRow } from './trunk-rows';

type Db = Sql | TransactionSql;

/**
 * What the API shows of a trunk `t`: its own columns, its numbers in the order given, and its
 * latest keep-alive from `h` (null columns before the first).
 */
const SHOWN_COLUMNS = (db: Db) => db`
  t.id, t.name, t.uri, t.username, t.is_default, t.max_concurrent_calls,
  t.calls_per_second, t.ring_timeout_seconds, t.codecs, t.created_at, t.updated_at,
  ARRAY(SELECT n.number FROM telephony.trunk_numbers n WHERE n.trunk_id = t.id ORDER BY n.position) AS numbers,
  h.ok AS health_ok, h.checked_at AS health_checked_at, h.latency_ms AS health_latency_ms,
  h.sip_code AS health_sip_code, h.last_error AS health_error`;
/** Every column a read for dialing or a change returns: the shown ones, the account and password. */
const SELECT_TRUNK = (db: Db) => db`t.account_id, t.password, ${SHOWN_COLUMNS(db)}`;
/** The keep-alive results joined to trunks `t`. */
const HEALTH = (db: Db) =>
  db`LEFT JOIN telephony.trunk_health h ON h.trunk_id = t.id AND h.checked_at IS NOT NULL`;
/** The trunks table with its keep-alive results: what SELECT_TRUNK reads from. */
const TRUNKS = (db: Db) => db`telephony.trunks t ${HEALTH(db)}`;

/** A number another trunk of the account already holds. */
export interface TakenNumber {
  number: string;
  trunk_id: string;
}

/** The telephony schema's SQL for trunks, always scoped by account: another account's row is not found. */
export const trunkRepository = {
  async insert(db: Db, accountId: string, id: string, fields: TrunkFields): Promise<void> {
    await db`INSERT INTO telephony.trunks ${db({ ...fields, id, account_id: accountId })}`;
  },

  async find(db: Db, accountId: string, id: string, options: { lock?: boolean } = {}) {
    const [row] = await db<TrunkRow[]>`
      SELECT ${SELECT_TRUNK(db)} FROM ${TRUNKS(db)}
      WHERE t.id = ${id} AND t.account_id = ${accountId} ${options.lock ? db`FOR UPDATE OF t` : db``}`;
    return row;
  },

  /**
   * One page of the account's trunks, newest first (ties by id): a keyset read on
   * trunks_account_created_idx, its numbers and health looked up for the page's rows only.
   */
  async page(
    db: Db,
    accountId: string,
    query: PageQuery,
  ): Promise<{ rows: TrunkListRow[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'sip_trunks');
    const after = start.after ? afterNewestFirst(db, start.after) : db``;
    const read = db<(TrunkListRow & { sort_at: string })[]>`
      SELECT ${SHOWN_COLUMNS(db)}, t.password IS NOT NULL AS has_password, t.sort_at
      FROM (SELECT *, created_at::text AS sort_at FROM telephony.trunks
             WHERE account_id = ${accountId} ${after}
             ORDER BY created_at DESC, id LIMIT ${start.limit} OFFSET ${start.offset}) t
      ${HEALTH(db)}
      ORDER BY t.created_at DESC, t.id`;
    const rows = await pageRows(start, read);
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const extent = await pageExtent(db, db`telephony.trunks WHERE account_id = ${accountId}`, start, page);
    return { rows: page.rows, extent };
  },

  async update(db: Db, accountId: string, id: string, fields: Partial<TrunkFields>): Promise<void> {
    await db`
      UPDATE telephony.trunks SET ${db({ ...fields, updated_at: new Date() })}
      WHERE id = ${id} AND account_id = ${accountId}`;
  },

  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    const rows = await db`
      DELETE FROM telephony.trunks WHERE id = ${id} AND account_id = ${accountId} RETURNING id`;
    return rows.length > 0;
  },

  /** Makes `exceptId` the only default of the account by clearing any other. */
  async clearDefault(db: Db, accountId: string, exceptId: string): Promise<void> {
    await db`
      UPDATE telephony.trunks SET is_default = false, updated_at = now()
      WHERE account_id = ${accountId} AND is_default AND id <> ${exceptId}`;
  },

  /** Which of `numbers` other trunks of the account hold. */
  async takenNumbers(db: Db, accountId: string, trunkId: string, numbers: string[]): Promise<TakenNumber[]> {
    if (numbers.length === 0) return [];
    return db<TakenNumber[]>`
      SELECT number, trunk_id FROM telephony.trunk_numbers
      WHERE account_id = ${accountId} AND number = ANY(${numbers}::text[]) AND trunk_id <> ${trunkId}`;
  },

  /** Replaces the trunk's numbers with `numbers`, in that order. */
  async setNumbers(db: Db, accountId: string, trunkId: string, numbers: string[]): Promise<void> {
    await db`DELETE FROM telephony.trunk_numbers WHERE trunk_id = ${trunkId}`;
    if (numbers.length === 0) return;
    await db`
      INSERT INTO telephony.trunk_numbers (account_id, number, trunk_id, position)
      SELECT ${accountId}, number, ${trunkId}, position::int - 1
      FROM unnest(${numbers}::text[]) WITH ORDINALITY AS n(number, position)`;
  },

  /**
   * The trunks a call from `sourceNumber` could go out through, best first: the trunk listing the
   * number, then the account's default (the same trunk may be both).
   */
  async routeCandidates(db: Db, accountId: string, sourceNumber: string) {
    return db<(TrunkRow & { by_number: boolean })[]>`
      SELECT ${SELECT_TRUNK(db)},
             EXISTS (SELECT 1 FROM telephony.trunk_numbers n
                      WHERE n.account_id = ${accountId} AND n.number = ${sourceNumber} AND n.trunk_id = t.id) AS by_number
      FROM ${TRUNKS(db)}
      WHERE t.account_id = ${accountId}
        AND (t.is_default OR t.id = (SELECT trunk_id FROM telephony.trunk_numbers
                                      WHERE account_id = ${accountId} AND number = ${sourceNumber}))`;
  },
};
