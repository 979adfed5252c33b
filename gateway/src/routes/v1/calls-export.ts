import { Readable } from 'node:stream';
import { ExportCallsQuery } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { revokedKeyError } from '../../auth/key-sessions';
import type { GatewayDeps } from '../../deps';
import { exportBody } from '../../export/call-export';
import { callContext } from '../../http/context';
import { operationId } from '../../http/openapi-operation';
import { principalOf, requireScope } from '../../http/route-auth';
import { BEARER, errorResponses } from '../../http/schemas';

export const callExportRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (
  app,
  { client, recordings, sessions },
) => {
  app.get(
    '/v1/calls/export',
    {
      config: { auth: requireScope('calls:read') },
      schema: {
        operationId: operationId('calls.export'),
        tags: ['Calls'],
        summary: 'Export call history',
        description:
          "`format=csv` (RFC 4180, one row per call, objects as JSON text, formula-like cells prefixed with ') " +
          'or `format=jsonl` (one call record per line). Same filters as the list, newest first, streamed: any ' +
          'number of calls in constant memory. When the key is revoked while its export streams (on any ' +
          'gateway instance), the stream is cut: the connection closes without the final chunk, which HTTP ' +
          'clients report as an incomplete transfer, so a cut export is never taken for a whole one.',
        security: BEARER,
        querystring: ExportCallsQuery,
        response: {
          200: {
            description: 'The calls, streamed',
            content: { 'text/csv': { schema: z.string() }, 'application/x-ndjson': { schema: z.string() } },
          },
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      // Watched like a live stream: a revocation heard on this instance cuts the export mid-way,
      // however long it has left to run (the key is also read again, in case it was missed). The
      // socket is closed rather than the body ended: a whole-looking CSV must not be a partial one.
      const { keyId } = principalOf(request);
      let streaming = false;
      const session = sessions.open(keyId, () => {
        if (!streaming) return;
        request.log.info({ key_id: keyId }, 'call export cut: its API key was revoked');
        reply.raw.destroy();
      });
      reply.raw.once('close', () => session.close());
      // The client left while its key was being read: 'close' has already fired.
      if (reply.raw.closed) session.close();
      const body = await exportBody(client, { ...filters, format }, callContext(request), recordings);
      if (session.revoked) throw revokedKeyError();
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .header(
          'content-type',
          format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        )
        .header('content-disposition', `attachment; filename="calls-${stamp}.${format}"`)
        .header('cache-control', 'no-store');
      streaming = true;
      // A stream is sent as is; the typed schema only documents the body for OpenAPI. One chunk
      // waits in the stream while another is on its way to the socket: memory stays a few chunks.
      return reply.send(Readable.from(body, { highWaterMark: 1 }) as unknown as string);
    },
  );
};
