import type postgres from 'postgres';
import { EXACT_TOTAL_MAX, PAGE_MAX, type PageExtent, type PageQuery } from '../contracts/common';
import { AppError } from '../errors';
import type { Sql } from './connect';

type Db = Sql | postgres.TransactionSql;
/** A piece of SQL built with the tagged template (`db\`...\``), embedded in another. */
export type SqlFragment = postgres.PendingQuery<postgres.Row[]>;

/**
 * One value of a list's sort key as a cursor carries it. Timestamps travel as PostgreSQL's own
 * text (`created_at::text`), never as a JavaScript Date: a Date keeps milliseconds only, and a
 * key rounded down would repeat or skip rows that share the millisecond.
 */
export type CursorValue = string | number;

/**
 * What a cursor's key value must be. `uuid` and `timestamp` are strings checked to be what
 * PostgreSQL casts without error (`::uuid`, `::timestamptz` of `created_at::text`): an edited
 * cursor must be a 422, never a failed cast (a 500).
 */
export type CursorKind = 'string' | 'number' | 'uuid' | 'timestamp';
/** The values of a sort key declared as these kinds: `['timestamp', 'uuid']` is `[string, string]`. */
export type CursorKey<K extends readonly CursorKind[]> = {
  -readonly [I in keyof K]: K[I] extends 'number' ? number : string;
};

/** Where a page starts: after a cursor's key (keyset), or at an offset (page numbers). */
export interface PageStart<Key extends readonly CursorValue[] = CursorValue[]> {
  page: number;
  /** The sort key of the last item before this page; undefined when paging by number. */
  after: Key | undefined;
  /** Rows to skip: 0 after a cursor. */
  offset: number;
  /** Rows to read: one more than the page, to learn whether another follows without counting. */
  limit: number;
  /** The list the cursors of this page are for (see `pageStart`). */
  list?: string | undefined;
}

const badCursor = () =>
  AppError.validation([
    {
      loc: ['query', 'cursor'],
      msg: 'Not a cursor of this list: pass a next_cursor as it was given',
      type: 'invalid_cursor',
    },
  ]);

/** Opaque to clients: base64url of `[page, ...key]`, or `[list, page, ...key]` for a named list. */
export function encodeCursor(page: number, key: readonly CursorValue[], list?: string): string {
  const parts = list === undefined ? [page, ...key] : [list, page, ...key];
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `created_at::text` with DateStyle ISO: `2026-11-26 18:30:19.123+00` (an offset of hours, minutes, seconds). */
const PG_TIMESTAMPTZ =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;

/** A real date and time of day, each field in range, as PostgreSQL would accept it. */
function isTimestamp(value: string): boolean {
  const m = PG_TIMESTAMPTZ.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes, offsetSeconds] = m
    .slice(1)
    .map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offsetHours <= 15 &&
    offsetMinutes < 60 &&
    offsetSeconds < 60
  );
}

function isKind(value: unknown, kind: CursorKind): boolean {
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (typeof value !== 'string' || value.length > 200) return false;
  if (kind === 'uuid') return UUID.test(value);
  if (kind === 'timestamp') return isTimestamp(value);
  return true;
}

/**
 * Reads a cursor made by `encodeCursor` for a sort key of these value kinds (and, when named, this
 * list); anything else (edited, from another list, garbage) is a 422 on `cursor`, never a query
 * built from it.
 */
export function decodeCursor<const K extends readonly CursorKind[]>(
  cursor: string,
  kinds: K,
  list?: string,
): { page: number; key: CursorKey<K> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed)) throw badCursor();
  const parts = parsed as unknown[];
  if (list !== undefined && parts.shift() !== list) throw badCursor();
  if (parts.length !== kinds.length + 1) throw badCursor();
  const [page, ...key] = parts;
  // Bounded as a page number is (GraphQL's Int is 32 bits: a larger page could not be answered).
  if (typeof page !== 'number' || !Number.isSafeInteger(page) || page < 2 || page > PAGE_MAX)
    throw badCursor();
  if (!key.every((value, i) => isKind(value, kinds[i]!))) throw badCursor();
  // Each value was checked against its declared kind just above.
  return { page, key: key as CursorKey<K> };
}

/**
 * Where the page asked for starts, for a list sorted by a key of these value kinds. A list that
 * names itself (`list`) makes cursors that only it accepts: another list's cursor of the same key
 * kinds is a 422 rather than a page of this list at some other list's position.
 */
export function pageStart<const K extends readonly CursorKind[]>(
  query: PageQuery,
  kinds: K,
  list?: string,
): PageStart<CursorKey<K>> {
  const limit = query.page_size + 1;
  if (query.cursor === undefined)
    return { page: query.page, after: undefined, offset: (query.page - 1) * query.page_size, limit, list };
  const { page, key } = decodeCursor(query.cursor, kinds, list);
  return { page, after: key, offset: 0, limit, list };
}

/**
 * A `timestamp` of a cursor's key, as SQL to compare a column with. It goes to PostgreSQL as text
 * and is cast there: written `${value}::timestamptz`, postgres.js types the parameter timestamptz
 * and sends it through a JavaScript Date, cutting it to milliseconds, so rows that share the
 * cursor's millisecond are skipped.
 */
export function cursorTime(db: Db, value: string): SqlFragment {
  return db`${value}::text::timestamptz`;
}

/**
 * `AND ...`: the rows after a cursor's key `[created_at text, id]` in a list sorted
 * `created_at DESC, id` (ascending id breaks ties), as columns `created_at` and `id`. The
 * directions differ, so no row comparison: an index on (..., created_at DESC, id) bounds the scan
 * by created_at, and the filter skips only the rows that share the cursor's instant.
 */
export function afterNewestFirst(db: Db, [at, id]: readonly [string, string]): SqlFragment {
  const time = cursorTime(db, at);
  return db`AND created_at <= ${time} AND (created_at < ${time} OR id > ${id}::uuid)`;
}

/**
 * Reads a page's rows with `query`. A cursor's values were checked for their kinds only: one that
 * PostgreSQL still cannot take as its column's type (a `number` of 1.5 or 1e300 for an integer
 * column) raises a data exception (SQLSTATE class 22), which is a bad cursor: a 422 on `cursor`
 * (not the 422 on `body` that other data exceptions answer).
 */
export async function pageRows<T>(
  start: PageStart<readonly CursorValue[]>,
  query: PromiseLike<T>,
): Promise<T> {
  try {
    return await query;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (start.after && typeof code === 'string' && code.startsWith('22')) throw badCursor();
    throw error;
  }
}

/**
 * Trims the extra row `pageStart` asked for and makes the cursor past the page's last item.
 * `keyOf` answers a row's sort key in the order and kinds the list decodes.
 */
export function pageEnd<R>(
  rows: readonly R[],
  start: PageStart<readonly CursorValue[]>,
  pageSize: number,
  keyOf: (row: R) => CursorValue[],
): { rows: R[]; nextCursor: string | null } {
  const page = rows.slice(0, pageSize);
  const more = rows.length > pageSize && page.length > 0;
  return {
    rows: page,
    nextCursor: more ? encodeCursor(start.page + 1, keyOf(page[page.length - 1]!), start.list) : null,
  };
}

/**
 * The total of a list whose rows are `from` (`schema.table WHERE ...`): counted while it is at
 * most EXACT_TOTAL_MAX (the count stops reading there), else the planner's estimate. Either way
 * the work is bounded whatever the history's length.
 */
export async function listTotal(db: Db, from: SqlFragment): Promise<{ total: number; totalExact: boolean }> {
  const [counted] = await db<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from} LIMIT ${EXACT_TOTAL_MAX + 1}) capped`;
  const n = counted?.n ?? 0;
  if (n <= EXACT_TOTAL_MAX) return { total: n, totalExact: true };
  const [plan] = await db<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>`
    EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from}`;
  const estimate = Math.round(plan?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  return { total: Math.max(estimate, n), totalExact: false };
}

/**
 * A page's extent without counting when the page itself shows the whole list (a first page that
 * is not full); otherwise `listTotal`.
 */
export async function pageExtent(
  db: Db,
  from: SqlFragment,
  start: PageStart<readonly CursorValue[]>,
  page: { rows: readonly unknown[]; nextCursor: string | null },
): Promise<PageExtent> {
  if (start.page === 1 && page.nextCursor === null) {
    return { total: page.rows.length, totalExact: true, page: 1, nextCursor: null };
  }
  const { total, totalExact } = await listTotal(db, from);
  return { total, totalExact, page: start.page, nextCursor: page.nextCursor };
}
