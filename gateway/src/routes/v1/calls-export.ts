import { Readable } from 'node:stream';
import { CALL, type Call, type CallContext, ExportCallsQuery } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { revokedKeyError } from '../../auth/key-sessions';
import type { GatewayClient } from '../../clients/gateway-client';
import type { GatewayDeps } from '../../deps';
import { csvLines, jsonLines } from '../../export/call-export';
import { callContext } from '../../http/context';
import { operationId } from '../../http/openapi-operation';
import { principalOf, requireScope } from '../../http/route-auth';
import { BEARER, errorResponses } from '../../http/schemas';
import { type RecordingLinks, withRecordingUrl } from '../../recordings/links';

const CHUNK = 500;
type Filters = Omit<z.output<typeof ExportCallsQuery>, 'format'>;

/**
 * Every matching call, chunk by chunk over the bus. The first chunk is fetched before anything is
 * sent, so a failing service still gets a proper error response rather than a truncated 200.
 */
async function firstAndRest(
  client: GatewayClient,
  filters: Filters,
  ctx: CallContext,
): Promise<AsyncIterable<Call>> {
  const first = await client.call(CALL.exportChunk, { ...filters, after: null, limit: CHUNK }, ctx);
  return (async function* () {
    yield* first.items;
    let next = first.next;
    while (next) {
      const chunk = await client.call(CALL.exportChunk, { ...filters, after: next, limit: CHUNK }, ctx);
      yield* chunk.items;
      next = chunk.next;
    }
  })();
}

async function* signed(calls: AsyncIterable<Call>, links: RecordingLinks): AsyncGenerator<Call> {
  for await (const call of calls) yield withRecordingUrl(call, links);
}

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
      const calls = signed(await firstAndRest(client, filters, callContext(request)), recordings);
      if (session.revoked) throw revokedKeyError();
      const lines = format === 'csv' ? csvLines(calls) : jsonLines(calls);
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .header(
          'content-type',
          format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        )
        .header('content-disposition', `attachment; filename="calls-${stamp}.${format}"`)
        .header('cache-control', 'no-store');
      streaming = true;
      // A stream is sent as is; the typed schema only documents the body for OpenAPI.
      return reply.send(Readable.from(lines) as unknown as string);
    },
  );
};
