import {
  Call,
  type CallFilters,
  CSV_HEADER_LINE,
  csvLine,
  EXPORT_CHUNK_BYTES,
  type ExportChunk,
  type ExportCursor,
  type ExportFormat,
  jsonLine,
  type Sql,
} from '@voice/shared';
import { toCall } from '../db/call-rows';
import { type ExportLine, exportLines, exportRecords } from '../db/export-rows';
import { ChunkWriter } from './chunk-writer';

export interface ExportChunkRequest extends CallFilters {
  format: ExportFormat;
  after: ExportCursor | null;
  limit: number;
}

/**
 * A chunk's calls are read in this many queries, each asked for while the calls before it are
 * copied: the database writes the next lines while this process sends these.
 */
const READS_PER_CHUNK = 4;
const MIN_READ = 8;

const cursorOf = (line: ExportLine): ExportCursor => ({ created_at: line.sortAt, id: line.id });

/** Call history export, one stateless keyset chunk of lines per bus request. */
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
      exportLines(this.sql, accountId, { ...filters, format, after: from, limit: count + 1 });
    const out = new ChunkWriter(EXPORT_CHUNK_BYTES);
    if (format === 'csv' && after === null) out.write(CSV_HEADER_LINE);
    const batch = Math.max(MIN_READ, Math.ceil(limit / READS_PER_CHUNK));
    let asked = Math.min(batch, limit);
    let reading: Promise<ExportLine[]> | undefined = read(after, asked);
    let sent = 0;
    let last: ExportLine | undefined;
    let more = false;
    while (reading) {
      const rows: ExportLine[] = await reading;
      const count = Math.min(rows.length, asked);
      more = rows.length > count;
      const left = limit - sent - count;
      asked = Math.min(batch, left);
      reading = more && left > 0 ? read(cursorOf(rows[count - 1]!), asked) : undefined;
      const lines = rows.slice(0, count);
      const written = await this.writtenHere(accountId, lines, format);
      for (const line of lines) {
        const start = out.length;
        const [before, rest] = written.get(line.id) ?? [line.before!, line.after!];
        out.write(before);
        if (line.link) out.link(line.id);
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
        last = line;
      }
    }
    return { ...out.encode(), rows: sent, next: more && last ? cursorOf(last) : null };
  }

  /**
   * The lines of the calls the database left to this service (export-sql.ts, ODD), written from
   * their records as the API has them, by id.
   */
  private async writtenHere(
    accountId: string,
    lines: ExportLine[],
    format: ExportFormat,
  ): Promise<Map<string, [string, string]>> {
    const ids = lines.filter((line) => line.before === null).map((line) => line.id);
    if (ids.length === 0) return new Map();
    const write = format === 'csv' ? csvLine : jsonLine;
    const records = await exportRecords(this.sql, accountId, ids);
    return new Map(records.map((row) => [row.id, write(Call.parse(toCall(row)))]));
  }
}
