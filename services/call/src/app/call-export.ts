import type { Call, CallFilters, ExportCursor, Sql } from '@voice/shared';
import { callRepository } from '../db/call-repository';
import { toCall } from '../db/call-rows';

/** Well under NATS's default 1 MiB message limit, with room for the envelope. */
const EXPORT_CHUNK_BYTES = 256 * 1024;
/** Rows read first for an export chunk, before their sizes tell how many more fit. */
const EXPORT_FIRST_BATCH = 32;

function chunkOf(items: Call[], more: boolean) {
  const last = items.at(-1);
  return { items, next: more && last ? { created_at: last.created_at, id: last.id } : null };
}

/** Call history export, one stateless keyset-paged chunk per bus request. */
export class CallExport {
  constructor(private readonly sql: Sql) {}

  /**
   * One export chunk; `next` is null once the last row was sent. Bounded by size as well as rows,
   * so a chunk always fits in one bus message whatever the transcripts weigh. Rows are read in
   * batches sized from the rows seen so far, so a chunk of heavy calls does not read (and drop)
   * hundreds of rows it cannot send: that over-read was most of the export's memory and time.
   */
  async chunk(accountId: string, request: { after: ExportCursor | null; limit: number } & CallFilters) {
    const { after, limit, ...filters } = request;
    const items: Call[] = [];
    let bytes = 0;
    let cursor = after;
    for (let batch = Math.min(limit, EXPORT_FIRST_BATCH); ; ) {
      const rows = await callRepository.after(this.sql, accountId, filters, cursor, batch);
      for (const row of rows) {
        const call = toCall(row);
        const size = JSON.stringify(call).length;
        if (items.length > 0 && bytes + size > EXPORT_CHUNK_BYTES) return chunkOf(items, true);
        bytes += size;
        items.push(call);
        if (items.length === limit) return chunkOf(items, true);
      }
      if (rows.length < batch) return chunkOf(items, false);
      const last = items.at(-1)!;
      cursor = { created_at: last.created_at, id: last.id };
      // As many as should fit in what is left, going by the average so far (one more, so a batch
      // that fills the chunk also shows whether anything follows).
      const room = Math.ceil((EXPORT_CHUNK_BYTES - bytes) / (bytes / items.length)) + 1;
      batch = Math.max(1, Math.min(limit - items.length, room));
    }
  }
}
