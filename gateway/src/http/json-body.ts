import { AppError, assertSafeInput } from '@voice/shared';

/**
 * The gateway's JSON body parser: malformed JSON and unsafe content (assertSafeInput) are 422s
 * naming the problem. An empty body (or JSON whitespace only) is no body (undefined), as if
 * Content-Type had not been sent: a route whose body is optional takes it, a route that needs one
 * refuses it on `loc: ['body']`.
 */
export function parseJsonBody(text: string): unknown {
  if (/^[ \t\r\n]*$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw AppError.validation([{ loc: ['body'], msg: 'Body is not valid JSON', type: 'json_invalid' }]);
  }
  assertSafeInput(parsed, 'body');
  return parsed;
}
