import {
  CALL,
  type CallContext,
  type CallFilters,
  csvCell,
  decodeExportChunk,
  EXPORT_CHUNK_BYTES,
  EXPORT_CHUNK_MAX,
  type ExportChunkBytes,
  type ExportFormat,
} from '@voice/shared';
import type { GatewayClient } from '../clients/gateway-client';
import type { RecordingLinks } from '../recordings/links';

// The cell rules live with the line formats in shared (the call service writes the lines).
export { csvCell };

/** Calls in the first chunk: few, so the first bytes leave soon; later chunks are sized from it. */
const FIRST_LIMIT = 32;
/** What a chunk is sized for: under the service's limit, so a chunk is rarely cut short there. */
const TARGET_BYTES = EXPORT_CHUNK_BYTES * 0.85;

/** How many calls the next chunk should ask for, going by the bytes per call of this one. */
function nextLimit(chunk: ExportChunkBytes): number {
  const bytes = chunk.data.length;
  if (chunk.rows === 0 || bytes === 0) return FIRST_LIMIT;
  return Math.max(1, Math.min(EXPORT_CHUNK_MAX, Math.floor((TARGET_BYTES * chunk.rows) / bytes)));
}

/** A chunk's bytes with each call's freshly signed recording link in its place, escaped for the format. */
function withLinks(chunk: ExportChunkBytes, format: ExportFormat, links: RecordingLinks): Buffer {
  const data = chunk.data;
  if (chunk.links.length === 0) return data;
  const escaped = format === 'csv' ? csvCell : (url: string) => JSON.stringify(url).slice(1, -1);
  const parts: Buffer[] = [];
  let from = 0;
  for (const [at, callId] of chunk.links) {
    parts.push(data.subarray(from, at), Buffer.from(escaped(links.sign(callId))));
    from = at;
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

/**
 * The export's body: every matching call, chunk by chunk over the bus (each chunk a keyset range
 * the call service formats). The first chunk is fetched before anything is sent, so a failing
 * service still gets a proper error response rather than a truncated 200. Each next chunk is
 * asked for as soon as the one before arrives, so the service works on it while this one is sent.
 */
export async function exportBody(
  client: GatewayClient,
  request: CallFilters & { format: ExportFormat },
  ctx: CallContext,
  links: RecordingLinks,
): Promise<AsyncIterable<Buffer>> {
  // The reply's text, read by decodeExportChunk: never JSON.parse over the chunk's bytes.
  const fetch = async (after: ExportChunkBytes['next'], limit: number) =>
    decodeExportChunk((await client.callJson(CALL.exportChunk, { ...request, after, limit }, ctx)) ?? '');
  const first = await fetch(null, FIRST_LIMIT);
  return (async function* () {
    let chunk: ExportChunkBytes | undefined = first;
    while (chunk) {
      const body = withLinks(chunk, request.format, links);
      const following: Promise<ExportChunkBytes> | undefined = chunk.next
        ? fetch(chunk.next, nextLimit(chunk))
        : undefined;
      // Not awaited until this chunk is sent; a failure then ends the body (the transfer is incomplete).
      following?.catch(() => {});
      yield body;
      chunk = await following;
    }
  })();
}
