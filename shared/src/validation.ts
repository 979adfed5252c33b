import type { z } from 'zod';
import { AppError, type ValidationIssue } from './errors';

export type IssueLocation = 'body' | 'query' | 'path' | 'header' | 'input';

/** Zod issues in the 422 shape: `loc` starts with where the value came from. */
export function toValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  where: IssueLocation,
): ValidationIssue[] {
  return issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

/** Parses or throws a 422 AppError naming every problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: IssueLocation,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw AppError.validation(toValidationIssues(result.error.issues, where));
  return result.data;
}

/** Deeper than any request of this API needs; deep enough to refuse before JSON.stringify overflows. */
export const MAX_INPUT_DEPTH = 32;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What no text the platform keeps may hold, whatever the field: NUL (PostgreSQL text cannot hold
 * it) and unpaired surrogates (U+D800 to U+DFFF alone have no UTF-8 form: stored, they would turn
 * into U+FFFD, or be refused by the database in JSON).
 */
export function unstorableText(text: string): { msg: string; type: string } | undefined {
  if (text.includes('\u0000'))
    return { msg: 'must not contain NUL (\\u0000) characters', type: 'string_nul' };
  if (LONE_SURROGATE.test(text)) {
    return {
      msg: 'must be valid Unicode text: an unpaired surrogate (\\ud800 to \\udfff) is not',
      type: 'string_surrogate',
    };
  }
  return undefined;
}

function unsafe(where: IssueLocation, loc: (string | number)[], msg: string, type: string): AppError {
  return AppError.validation([{ loc: [where, ...loc], msg, type }]);
}

/** The same shapes secure-json-parse refuses: `__proto__`, and `constructor.prototype`. */
function isPrototypePoisoning(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return (
    key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')
  );
}

/**
 * Refuses (a 422 naming the field) what a parsed input may hold but the platform must not take,
 * on every surface alike: unstorable text in any string or key, keys that could poison prototypes
 * once merged, and unbounded nesting. Iterative, so a hostile depth cannot overflow the stack.
 */
export function assertSafeInput(root: unknown, where: IssueLocation): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) throw unsafe(where, path, problem.msg, problem.type);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) {
      throw unsafe(where, path, `nesting deeper than ${MAX_INPUT_DEPTH} levels`, 'json_too_deep');
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        stack.push({ value: item, path: [...path, index] });
      });
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const problem = unstorableText(key);
      if (problem) throw unsafe(where, path, `keys ${problem.msg}`, problem.type);
      if (isPrototypePoisoning(key, item)) {
        throw unsafe(where, [...path, key], `the key '${key}' is not allowed here`, 'forbidden_key');
      }
      stack.push({ value: item, path: [...path, key] });
    }
  }
}
