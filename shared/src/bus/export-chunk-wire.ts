import type { ExportChunk } from '../contracts/call';
import { CALL } from '../contracts/subjects';
import { AppError } from '../errors';
import { EncodedJson } from './wire';

/**
 * An export chunk on the bus without JSON over its bytes. A chunk is up to 640 KiB of lines as
 * base64; written by JSON.stringify and read by JSON.parse, that text was scanned twice and copied
 * twice more per chunk, most of the platform's CPU on an export with the garbage it left
 * (docs/performance.md). Here the small fields are checked against the contract and written as
 * JSON, and `data`, base64 (nothing in it to escape), goes last as it is: the reader parses the
 * small head and decodes the base64 straight out of the text.
 */

const DATA_KEY = ',"data":"';
const TAIL = '"}';

/** The chunk's reply as serveRpc sends it: checked here as serveRpc would (it does not check an EncodedJson). */
export function encodeExportChunk(chunk: ExportChunk): EncodedJson {
  const { data, ...head } = chunk;
  // The contract's check of everything but the bytes (data is a string; its text is not read).
  const checked = CALL.exportChunk.reply.safeParse({ ...head, data: '' });
  if (!checked.success) {
    throw new Error(
      `export chunk does not match its contract: ${JSON.stringify(checked.error.issues).slice(0, 500)}`,
    );
  }
  const { links, rows, next } = checked.data;
  return new EncodedJson(`${JSON.stringify({ links, rows, next }).slice(0, -1)}${DATA_KEY}${data}${TAIL}`);
}

/** An export chunk with its lines' bytes, as the gateway uses it. */
export type ExportChunkBytes = Omit<ExportChunk, 'data'> & { data: Buffer };

/** Reads the reply text encodeExportChunk wrote (callRpcJson), decoding its bytes. */
export function decodeExportChunk(text: string): ExportChunkBytes {
  const at = text.indexOf(DATA_KEY);
  if (at === -1 || !text.endsWith(TAIL))
    throw new AppError('INTERNAL', 'Malformed export chunk from the call service');
  const head = JSON.parse(`${text.slice(0, at)}}`) as Omit<ExportChunk, 'data'>;
  // A sliced string: the base64 decoder reads it in place, no copy of the text is made.
  return { ...head, data: Buffer.from(text.slice(at + DATA_KEY.length, -TAIL.length), 'base64') };
}
