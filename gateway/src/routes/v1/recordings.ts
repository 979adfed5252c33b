import { AppError, Uuid, verifyRecordingLink } from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { operationId } from '../../http/openapi-operation';
import { PUBLIC } from '../../http/route-auth';
import { errorResponses } from '../../http/schemas';
import { sendStoredRecording } from '../../recordings/stored';
import { sendSynthesizedRecording } from '../../recordings/synthesized';

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
 * or expired links are 403. A recorded call's WAV comes from the recording store; the simulated carrier's audio
 * is synthesised by the call service and streamed in chunks. Both honour a single Range.
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
          'altered or expired link is 403. Answers audio/wav and honours a single `Range` (206, 416).',
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
      return sendSynthesizedRecording(client, callId, request, reply);
    },
  );
};
