import { AppError, type ValidationIssue } from '@voice/shared';

/** Deeper than any request of this API needs; deep enough to refuse before JSON.stringify overflows. */
export const MAX_JSON_DEPTH = 32;

function problem(loc: (string | number)[], msg: string, type: string): AppError {
  const issue: ValidationIssue = { loc: ['body', ...loc], msg, type };
  return AppError.validation([issue]);
}

/**
 * Checks what JSON.parse accepts but the platform must not take: NUL characters (PostgreSQL text
 * cannot hold them), keys that could poison prototypes once merged, and unbounded nesting.
 * Iterative, so a hostile depth cannot overflow the stack here either.
 */
export function assertSafeJson(root: unknown): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        throw problem(path, 'must not contain NUL (\\u0000) characters', 'string_nul');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_JSON_DEPTH) {
      throw problem(path, `nesting deeper than ${MAX_JSON_DEPTH} levels`, 'json_too_deep');
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        stack.push({ value: item, path: [...path, index] });
      });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000'))
        throw problem(path, 'keys must not contain NUL (\\u0000) characters', 'string_nul');
      if (isPrototypePoisoning(key, item)) {
        throw problem([...path, key], `the key '${key}' is not allowed here`, 'forbidden_key');
      }
      stack.push({ value: item, path: [...path, key] });
    }
  }
}

/** The same shapes secure-json-parse refuses: `__proto__`, and `constructor.prototype`. */
function isPrototypePoisoning(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return (
    key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')
  );
}

/**
 * The gateway's JSON body parser: malformed JSON and unsafe content are 422s naming the problem.
 * An empty body (or JSON whitespace only) is no body (undefined), as if Content-Type had not been sent:
 * a route whose body is optional takes it, a route that needs one refuses it on `loc: ['body']`.
 */
export function parseJsonBody(text: string): unknown {
  if (/^[ \t\r\n]*$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw problem([], 'Body is not valid JSON', 'json_invalid');
  }
  assertSafeJson(parsed);
  return parsed;
}
