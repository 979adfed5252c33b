import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function dateTime(value: unknown): string {
  if (typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)))
    return value;
  throw new GraphQLError('DateTime must be an ISO 8601 date-time with an offset, e.g. 2026-11-22T10:00:00Z', {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

/** Dates travel as the ISO strings REST uses; input is checked here, before any resolver runs. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO 8601 date-time with offset, e.g. 2026-11-22T10:00:00.000Z.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: dateTime,
  parseLiteral: (ast) => dateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

/** Free-form JSON (metadata, contact rows), passed through; the operation's zod schema bounds it. */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value (metadata, contact rows, collected values).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
