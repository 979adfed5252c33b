import { type CallFilters, cursorTime, type ExportCursor, type ExportFormat, type Sql } from '@voice/shared';
import { filtered } from './call-repository';
import { type CallRecordRow, RECORD_COLUMNS } from './call-rows';
import { lineColumns, ROW_LATERAL } from './export-sql';

/** A call of an export as the database wrote it: its line's bytes, or null when the service writes it. */
export interface ExportLine {
  /** The line up to its recording link, and from there on (export-sql.ts); null for an odd call. */
  before: Buffer | null;
  after: Buffer | null;
  /** Whether the call has a recording, so a link. */
  link: boolean;
  id: string;
  /** created_at to the microsecond: the cursor past this call. */
  sortAt: string;
}

const COLUMNS: Record<ExportFormat, string> = { jsonl: lineColumns('jsonl'), csv: lineColumns('csv') };
/** `t`: a boolean in PostgreSQL's text. */
const TRUE = 0x74;

/**
 * The next `limit` calls after `after` (newest first), their lines written by the database: a
 * keyset range, served by the index of the filter. The values come as the bytes the database sent
 * (postgres.js `raw`), copied into the chunk as they are: no string is made of a line. The
 * cursor's time has microseconds (cursorTime keeps them).
 */
export async function exportLines(
  db: Sql,
  accountId: string,
  request: CallFilters & { format: ExportFormat; after: ExportCursor | null; limit: number },
): Promise<ExportLine[]> {
  const { format, after, limit, ...filters } = request;
  const rows = await db`
    SELECT ${db.unsafe(COLUMNS[format])} FROM call.calls c ${db.unsafe(ROW_LATERAL)}
    WHERE ${filtered(db, accountId, filters)}
    ${after ? db`AND (c.created_at, c.id) < (${cursorTime(db, after.created_at)}, ${after.id}::uuid)` : db``}
    ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit}`.raw();
  return rows.map(([before, after, link, id, sortAt]) => ({
    before: before as Buffer | null,
    after: after as Buffer | null,
    link: (link as Buffer)[0] === TRUE,
    id: (id as Buffer).toString(),
    sortAt: (sortAt as Buffer).toString(),
  }));
}

/** The records of the calls whose lines the service writes itself (the odd ones, rare). */
export function exportRecords(db: Sql, accountId: string, ids: string[]): Promise<CallRecordRow[]> {
  return db<CallRecordRow[]>`
    SELECT ${db(RECORD_COLUMNS)},
      jsonb_build_object('name', agent_snapshot->'name', 'agent_type', agent_snapshot->'agent_type') AS agent_snapshot
    FROM call.calls WHERE account_id = ${accountId} AND id = ANY(${ids}::uuid[])`;
}
