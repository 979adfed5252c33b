import { type IssueLocation, toValidationIssues, type ValidationIssue } from '@voice/shared';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/** Carries zod's own issues (with typed paths) from the validator to the error handler. */
export class RequestValidationError extends Error {
  constructor(readonly issues: readonly z.core.$ZodIssue[]) {
    super('Request failed validation');
    this.name = 'RequestValidationError';
  }
}

/** Fastify's name for where a value came from, in the API's `loc[0]` words (docs/api-guide.md). */
const LOCATIONS: Record<string, IssueLocation> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export function issuesFor(error: RequestValidationError, context: string | undefined): ValidationIssue[] {
  return toValidationIssues(error.issues, LOCATIONS[context ?? 'body'] ?? 'body');
}

/** Validates with zod and keeps its issues intact (fastify-type-provider-zod flattens paths). */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success
      ? { value: result.data }
      : { error: new RequestValidationError(result.error.issues) };
  };
