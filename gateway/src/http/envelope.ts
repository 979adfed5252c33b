import type { ValidationIssue } from '@voice/shared';
import type { FastifyRequest } from 'fastify';

export interface SuccessEnvelope<T> {
  data: T;
  request_id: string;
  timestamp: string;
  success: true;
}

export interface ErrorBody {
  detail: string | ValidationIssue[];
  request_id: string;
  timestamp: string;
  success: false;
}

export function envelope<T>(request: FastifyRequest, data: T): SuccessEnvelope<T> {
  return { data, request_id: request.id, timestamp: new Date().toISOString(), success: true };
}

/**
 * The success envelope as JSON around `dataJson`, a reply's own JSON text as it came (see decodeReplyJson): the same
 * text as JSON.stringify(envelope(request, data)), without serialising the data again.
 */
export function envelopeJson(request: FastifyRequest, dataJson: string): string {
  return `{"data":${dataJson},"request_id":${JSON.stringify(request.id)},"timestamp":"${new Date().toISOString()}","success":true}`;
}

export function errorBody(request: FastifyRequest, detail: string | ValidationIssue[]): ErrorBody {
  return { detail, request_id: request.id, timestamp: new Date().toISOString(), success: false };
}
