import { ErrorEnvelope } from '@voice/shared';
import type { z } from 'zod';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 416 | 422 | 429 | 500 | 503 | 504;

const DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'Bad request',
  401: 'Missing or invalid API key',
  403: 'The API key lacks the scope this operation needs',
  404: 'Not found (also: a resource of another account)',
  409: 'Not allowed in the current state',
  413: 'Body larger than 16 MiB',
  415: 'Body is not application/json',
  416: 'The Range asks for bytes past the end (Content-Range gives the size)',
  422: 'Validation failed: detail lists { loc, msg, type } per problem',
  429: 'Rate limit exceeded (see Retry-After)',
  500: 'Internal error (logged with the request id)',
  503: 'A backing service is unavailable',
  504: 'A backing service did not answer in time',
};

/** Error responses a route documents; every route can answer 429, 500, 503 and 504. */
export function errorResponses(...statuses: ErrorStatus[]): Record<number, z.ZodType> {
  const all = new Set<ErrorStatus>([...statuses, 429, 500, 503, 504]);
  return Object.fromEntries(
    [...all].sort().map((status) => [status, ErrorEnvelope.describe(DESCRIPTIONS[status])]),
  );
}

export const AUTHENTICATED_ERRORS = [401, 403] as const;
export const BEARER = [{ bearerAuth: [] }];
