import { Readable } from 'node:stream';
import { AppError, type ByteRange, type RecordingStore } from '@voice/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';

/**
 * What a Range header asks of a file of `size` bytes: one range, `unsatisfiable` (416), or the
 * whole file. A malformed header, another unit or several ranges get the whole file, which
 * RFC 9110 allows (a server may ignore Range); players ask for one range at a time.
 */
export function requestedRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const ranges = parseRange(size, header, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

/** A store that cannot answer (NATS unreachable, a disk failing) makes the recording unavailable. */
function unavailable(error: unknown): never {
  throw new AppError('SERVICE_UNAVAILABLE', 'The recording store is unavailable', { cause: error });
}

/**
 * Answers with the call's recording from the store, honouring a single byte range (206, or 416 with
 * the size), and says whether it did: a call recorded by the simulated carrier has no stored file.
 */
export async function sendStoredRecording(
  store: RecordingStore,
  callId: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const stat = await store.stat(callId).catch(unavailable);
  if (!stat) return false;
  const range = requestedRange(request.headers.range, stat.size);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${stat.size}`);
    throw new AppError('RANGE_NOT_SATISFIABLE', `This recording has ${stat.size} bytes`);
  }
  // A HEAD answers the headers without reading the recording (an empty stream keeps Fastify from
  // replacing the Content-Length with 0, as it does for a HEAD answered without a body).
  const body =
    request.method === 'HEAD' ? Readable.from([]) : await store.read(callId, range).catch(unavailable);
  if (!body) return false;
  reply
    .header('accept-ranges', 'bytes')
    .header('content-type', stat.contentType)
    .header('cache-control', 'private, no-store');
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`)
      .header('content-length', range.end - range.start + 1);
  } else {
    reply.header('content-length', stat.size);
  }
  reply.send(body);
  return true;
}
