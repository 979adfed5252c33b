import {
  Call,
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
import { toCall } from '../db/call-rows';
import { exportRows } from '../db/export-rows';

export interface ExportChunkRequest extends CallFilters {
  format: ExportFormat;
  after: ExportCursor | null;
  limit: number;
}

/** A chunk's lines as they are added, and where each recording link goes in them. */
class ChunkText {
  private readonly parts: string[] = [];
  /** Characters so far. */
  length = 0;
  /** [character offset, call id] */
  private readonly links: [number, string][] = [];

  add(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  link(callId: string): void {
    this.links.push([this.length, callId]);
  }

  /** UTF-8 in base64, each link at its byte offset (the same as its character offset in ASCII text). */
  encode(): Pick<ExportChunk, 'data' | 'links'> {
    const text = this.parts.join('');
    const bytes = Buffer.from(text);
    let links = this.links;
    if (bytes.length !== text.length) {
      let chars = 0;
      let offset = 0;
      links = links.map(([at, id]) => {
        offset += Buffer.byteLength(text.slice(chars, at));
        chars = at;
        return [offset, id];
      });
    }
    return { data: bytes.toString('base64'), links };
  }
}

/** Call history export, one stateless keyset chunk of formatted lines per bus request. */
export class CallExport {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `limit` calls after `after`, as lines of the format, stopping before EXPORT_CHUNK_BYTES
   * (a chunk always holds one call at least); `next` is null once the last call was sent. The
   * records are the API's (checked against the Call contract, which also sets their nested
   * objects' field order), so a line is the record GET /v1/calls/{id} answers.
   */
  async chunk(accountId: string, request: ExportChunkRequest): Promise<ExportChunk> {
    const { after, limit, format, ...filters } = request;
    // One row more than asked: whether it exists tells whether another chunk follows.
    const rows = await exportRows(this.sql, accountId, filters, after, limit + 1);
    const text = new ChunkText();
    if (format === 'csv' && after === null) text.add(CSV_HEADER_LINE);
    const line = format === 'csv' ? csvLine : jsonLine;
    let sent = 0;
    for (; sent < Math.min(rows.length, limit); sent++) {
      const call = Call.parse(toCall(rows[sent]! as never));
      const [before, rest] = line(call);
      if (sent > 0 && text.length + before.length + rest.length > EXPORT_CHUNK_BYTES) break;
      text.add(before);
      if (hasRecording(call)) text.link(call.id);
      text.add(rest);
    }
    const last = rows[sent - 1];
    const next = sent < rows.length && last ? { created_at: last.sort_at, id: last.id } : null;
    return { ...text.encode(), rows: sent, next };
  }
}
