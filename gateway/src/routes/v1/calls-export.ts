import { Readable } from 'node:stream';
import { CALL, type Call, type CallContext, ExportCallsQuery } from '@voice/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayClient } from '../../clients/gateway-client';
import type { GatewayDeps } from '../../deps';
import { csvLines, jsonLines } from '../../export/call-export';
import { callContext } from '../../http/context';
import { operationId } from '../../http/openapi-operation';
import { requireScope } from '../../http/route-auth';
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

export const callExportRoutes: FastifyPluginAsyncZod<GatewayDeps> = async (app, { client, recordings }) => {
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
          'number of calls in constant memory.',
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
      const calls = signed(await firstAndRest(client, filters, callContext(request)), recordings);
      const lines = format === 'csv' ? csvLines(calls) : jsonLines(calls);
      const stamp = new Date().toISOString().slice(0, 10);
      reply
        .header(
          'content-type',
          format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        )
        .header('content-disposition', `attachment; filename="calls-${stamp}.${format}"`)
        .header('cache-control', 'no-store');
      // A stream is sent as is; the typed schema only documents the body for OpenAPI.
      return reply.send(Readable.from(lines) as unknown as string);
    },
  );
};
