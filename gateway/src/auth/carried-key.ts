import { AppError } from '@voice/shared';

/**
 * An `Authorization` value carried outside the HTTP headers: the value (undefined when none was
 * sent), or why it is refused.
 */
export type CarriedAuthorization = { value: string | undefined } | { failure: AppError };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The entries of an object named `authorization` in any case (header names are case-insensitive). */
function authorizations(params: unknown): unknown[] {
  if (!isObject(params)) return [];
  return Object.keys(params)
    .filter((name) => name.toLowerCase() === 'authorization')
    .map((name) => params[name]);
}

/**
 * The `Authorization` of connection parameters (graphql-ws `connection_init`, tRPC
 * `connectionParams`): named in any case, at the top level or under `headers`, as clients that
 * treat them as headers send it (GraphiQL sends `Authorization`). More than one is refused, as more
 * than one Authorization header is.
 */
export function authorizationParam(params: unknown): CarriedAuthorization {
  const found = [...authorizations(params), ...authorizations(isObject(params) ? params.headers : undefined)];
  if (found.length > 1) {
    return { failure: new AppError('UNAUTHORIZED', 'Send the API key once: one Authorization parameter') };
  }
  const [value] = found;
  if (value === undefined || typeof value === 'string') return { value };
  return {
    failure: new AppError('UNAUTHORIZED', 'Malformed Authorization parameter: expected Bearer <API_KEY>'),
  };
}
