import { Readable } from 'node:stream';
import { AppError, CALL, RECORDING_CHUNK_MAX, Uuid, verifyRecordingLink } from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { callContext } from '../../http/context';
import { operationId } from '../../http/openapi-operation';
import { PUBLIC } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';
import { sendStoredRecording } from '../../recordings/stored';

const Params = z.object({ file: z.string().regex(/^[0-9a-f-]{36}\.wav$/, 'must be <call_id>.wav') });
const Query = z.object({
  expires: z
    .string()
    .regex(/^\d{1,12}$/)
    .transform(Number),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
});

/**
 * Plays a recording through a signed link: no API key, only a valid, unexpired signature. Altered
 * or expired links are 403. A recorded call's WAV comes from the recording store (with Range); the
 * simulated carrier's audio is synthesised by the call service and streamed in chunks.
 */
export const recordingRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  const { client, recordingSecret, recordingStore } = deps;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/recordings/:file',
    {
      config: { auth: PUBLIC },
      schema: {
        operationId: operationId('calls.recording'),
        tags: ['Calls'],
        summary: 'Play a call recording (signed link)',
        description:
          'The `recording_url` of a call record: works without an API key until `expires` (Unix seconds). An ' +
          'altered or expired link is 403. Answers audio/wav; a recorded call honours a single `Range` (206, 416).',
        security: [],
        params: Params,
        querystring: Query,
        response: {
          200: { description: 'The recording', content: { 'audio/wav': { schema: z.string() } } },
          206: { description: 'The requested bytes', content: { 'audio/wav': { schema: z.string() } } },
          ...errorResponses(403, 404, 416, 422),
        },
      },
    },
    async (request, reply) => {
      const callId = request.params.file.slice(0, -'.wav'.length);
      if (!Uuid.safeParse(callId).success) throw new AppError('NOT_FOUND', 'No such recording');
      const check = verifyRecordingLink({ callId, ...request.query, secret: recordingSecret });
      if (!check.ok) {
        throw new AppError(
          'FORBIDDEN',
          check.reason === 'expired' ? 'This recording link has expired' : 'Invalid recording link',
        );
      }
      if (await sendStoredRecording(recordingStore, callId, request, reply)) return reply;
      const ctx = callContext(request);
      const info = await client.call(CALL.recordingInfo, { call_id: callId }, ctx);
      if (!info.has_recording) throw new AppError('NOT_FOUND', 'This call has no recording');
      const first = await client.call(
        CALL.recordingChunk,
        { call_id: callId, offset: 0, length: RECORDING_CHUNK_MAX },
        ctx,
      );
      const chunks = (async function* () {
        let offset = 0;
        let chunk = first;
        for (;;) {
          const bytes = Buffer.from(chunk.data, 'base64');
          yield bytes;
          offset += bytes.length;
          if (bytes.length === 0 || offset >= chunk.total) return;
          chunk = await client.call(
            CALL.recordingChunk,
            { call_id: callId, offset, length: RECORDING_CHUNK_MAX },
            ctx,
          );
        }
      })();
      reply
        .header('content-type', 'audio/wav')
        .header('content-length', first.total)
        .header('cache-control', 'private, no-store');
      // A stream is sent as is; the typed schema only documents the body for OpenAPI.
      return reply.send(Readable.from(chunks) as unknown as string);
    },
  );
};
