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
