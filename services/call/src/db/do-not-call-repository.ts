import {
  type AddDoNotCallBody,
  cursorTime,
  type DoNotCallEntry,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageRows,
  pageStart,
  type Sql,
  type TransactionSql,
} from '@voice/shared';

type Db = Sql | TransactionSql;
type EntryRow = Omit<DoNotCallEntry, 'created_at'> & { created_at: Date; sort_at: string };

const COLUMNS = ['number', 'reason', 'source', 'call_id', 'created_at'] as const;

function toEntry({ sort_at: _, ...row }: EntryRow): DoNotCallEntry {
  return { ...row, created_at: row.created_at.toISOString() };
}

/** The call schema's do-not-call list: every read and write is scoped by account. */
export const doNotCallRepository = {
  /**
   * Lists the numbers in one statement (all or none), the numbers travelling as one array
   * parameter however many; a number listed already keeps its entry. Answers how many were new.
   */
  async add(db: Db, accountId: string, body: AddDoNotCallBody): Promise<number> {
    const added = await db`
      INSERT INTO call.do_not_call (account_id, number, reason, source)
      SELECT ${accountId}, n, ${body.reason}, ${body.source} FROM unnest(${body.numbers}::text[]) n
      ON CONFLICT (account_id, number) DO NOTHING`;
    return added.count;
  },

  async find(db: Db, accountId: string, number: string): Promise<DoNotCallEntry | undefined> {
    const [row] = await db<EntryRow[]>`
      SELECT ${db(COLUMNS)}, '' AS sort_at FROM call.do_not_call
      WHERE account_id = ${accountId} AND number = ${number}`;
    return row && toEntry(row);
  },

  /** Whether the account lists the number: one primary-key lookup, made by every placement. */
  async listed(db: Db, accountId: string, number: string): Promise<boolean> {
    const [row] = await db`
      SELECT 1 FROM call.do_not_call WHERE account_id = ${accountId} AND number = ${number}`;
    return row !== undefined;
  },

  /** Which of the numbers the account lists: one statement, the numbers as one array parameter. */
  async listedAmong(db: Db, accountId: string, numbers: readonly string[]): Promise<string[]> {
    const rows = await db<{ number: string }[]>`
      SELECT number FROM call.do_not_call
      WHERE account_id = ${accountId} AND number = ANY(${numbers as string[]}::text[])`;
    return rows.map((row) => row.number);
  },

  async remove(db: Db, accountId: string, number: string): Promise<boolean> {
    const removed = await db`
      DELETE FROM call.do_not_call WHERE account_id = ${accountId} AND number = ${number}`;
    return removed.count > 0;
  },

  /**
   * One page of the account's list, newest first (ties by number), by keyset after a cursor: the
   * same cost however long the list, through do_not_call_list_idx.
   */
  async page(
    db: Db,
    accountId: string,
    query: PageQuery,
  ): Promise<{ rows: DoNotCallEntry[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'string'], 'do_not_call');
    const { after } = start;
    const rows = await pageRows(
      start,
      db<EntryRow[]>`
        SELECT ${db(COLUMNS)}, created_at::text AS sort_at FROM call.do_not_call
        WHERE account_id = ${accountId}
        ${after ? db`AND (created_at, number) < (${cursorTime(db, after[0])}, ${after[1]})` : db``}
        ORDER BY created_at DESC, number DESC LIMIT ${start.limit} OFFSET ${start.offset}`,
    );
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.number]);
    const extent = await pageExtent(db, db`call.do_not_call WHERE account_id = ${accountId}`, start, page);
    return { rows: page.rows.map(toEntry), extent };
  },
};
