import {
  type CallFilters,
  CSV_HEADER_LINE,
  csvLine,
  EXPORT_CHUNK_BYTES,
  type ExportChunk,
  type ExportCursor,
  type ExportFormat,
  hasRecording,
  jsonLine,
  type Sql,
} from '@voice/shared';
import { type ExportRow, exportCall, exportRows } from '../db/export-rows';
import { ChunkWriter } from './chunk-writer';

export interface ExportChunkRequest extends CallFilters {
  format: ExportFormat;
  after: ExportCursor | null;
  limit: number;
}

/**
 * A chunk's calls are read in this many queries, each asked for while the calls before it are
 * written: the database reads the next calls while this process writes lines.
 */
const READS_PER_CHUNK = 4;
const MIN_READ = 8;

const cursorOf = (row: ExportRow): ExportCursor => ({ created_at: row.sort_at, id: row.id });

/** Call history export, one stateless keyset chunk of formatted lines per bus request. */
export class CallExport {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `limit` calls after `after`, as lines of the format, stopping before EXPORT_CHUNK_BYTES
   * (a chunk always holds one call at least); `next` is null once the last call was sent. A JSON
   * line is the record GET /v1/calls/{id} answers, byte for byte (but for its link).
   */
  async chunk(accountId: string, request: ExportChunkRequest): Promise<ExportChunk> {
    const { after, limit, format, ...filters } = request;
    // One row more than asked: whether it exists tells whether more calls follow.
    const read = (from: ExportCursor | null, count: number) =>
      exportRows(this.sql, accountId, { ...filters, format, after: from, limit: count + 1 });
    const line = format === 'csv' ? csvLine : jsonLine;
    const out = new ChunkWriter(EXPORT_CHUNK_BYTES);
    if (format === 'csv' && after === null) out.write(CSV_HEADER_LINE);
    const batch = Math.max(MIN_READ, Math.ceil(limit / READS_PER_CHUNK));
    let asked = Math.min(batch, limit);
    let reading: Promise<ExportRow[]> | undefined = read(after, asked);
    let sent = 0;
    let last: ExportRow | undefined;
    let more = false;
    while (reading) {
      const rows: ExportRow[] = await reading;
      const count = Math.min(rows.length, asked);
      more = rows.length > count;
      const left = limit - sent - count;
      asked = Math.min(batch, left);
      reading = more && left > 0 ? read(cursorOf(rows[count - 1]!), asked) : undefined;
      for (const row of rows.slice(0, count)) {
        const call = exportCall(row, format);
        const [before, rest] = line(call);
        const start = out.length;
        out.write(before);
        if (hasRecording(call)) out.link(call.id);
        out.write(rest);
        if (sent > 0 && out.length > EXPORT_CHUNK_BYTES) {
          // Full: this call starts the next chunk; the calls being read meanwhile are not needed.
          out.truncate(start);
          more = true;
          reading?.catch(() => {});
          reading = undefined;
          break;
        }
        sent++;
        last = row;
      }
    }
    return { ...out.encode(), rows: sent, next: more && last ? cursorOf(last) : null };
  }
}
