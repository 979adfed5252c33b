import { Readable } from 'node:stream';
import { AppError, CALL, RECORDING_CHUNK_MAX } from '@voice/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayClient } from '../clients/gateway-client';
import { callContext } from '../http/context';
import { requestedRange } from './stored';

/**
 * Answers with the audio the call service synthesises for a simulated call, read in chunks over
 * the bus, honouring a single byte range as a stored recording does: a browser's <audio> seeks by
 * asking for the bytes from a point on, and without 206 answers it cannot seek at all.
 */
export async function sendSynthesizedRecording(
  client: GatewayClient,
  callId: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const ctx = callContext(request);
  const info = await client.call(CALL.recordingInfo, { call_id: callId }, ctx);
  if (!info.has_recording) throw new AppError('NOT_FOUND', 'This call has no recording');
  const read = (offset: number, length: number) =>
    client.call(CALL.recordingChunk, { call_id: callId, offset, length }, ctx);
  // The first chunk tells the size, which a range is judged against.
  const first = await read(0, RECORDING_CHUNK_MAX);
  const total = first.total;
  const range = requestedRange(request.headers.range, total);
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${total}`);
    throw new AppError('RANGE_NOT_SATISFIABLE', `This recording has ${total} bytes`);
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? total - 1;
  const firstBytes = Buffer.from(first.data, 'base64');
  const chunks = (async function* () {
    let offset = start;
    // The part of the first chunk the range covers, if any; the rest is read as it is sent.
    if (start < firstBytes.length) {
      const part = firstBytes.subarray(start, Math.min(firstBytes.length, end + 1));
      yield part;
      offset += part.length;
    }
    while (offset <= end) {
      const chunk = await read(offset, Math.min(RECORDING_CHUNK_MAX, end + 1 - offset));
      const bytes = Buffer.from(chunk.data, 'base64');
      if (bytes.length === 0) return;
      yield bytes;
      offset += bytes.length;
    }
  })();
  reply
    .header('accept-ranges', 'bytes')
    .header('content-type', 'audio/wav')
    .header('content-length', end - start + 1)
    .header('cache-control', 'private, no-store');
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${total}`);
  // A stream is sent as is; the route's typed schema only documents the body for OpenAPI.
  return reply.send(request.method === 'HEAD' ? Readable.from([]) : Readable.from(chunks));
}
