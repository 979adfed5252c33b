import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from './envelope';

const CACHE_CONTROL = 'public, max-age=300';

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends catalogue data with a strong ETag over the data alone (the envelope's request_id and
 * timestamp change every time), answering 304 with no body when the client already has it.
 */
export function sendCacheable<T>(request: FastifyRequest, reply: FastifyReply, data: T): FastifyReply {
  const etag = `"${createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 27)}"`;
  reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.send(envelope(request, data));
}
