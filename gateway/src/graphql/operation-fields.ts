import type { z } from 'zod';
import { OPERATIONS } from '../operations/catalogue';
import { LIVE_OPERATIONS } from '../operations/live';
import type { GraphQLFieldSpec } from '../operations/operation';
import { defOf, descriptionOf } from './descriptions';
import { enumNamed } from './enums';

/** What the root types say of themselves: the limits a document meets there. */
const ROOTS: Record<string, string> = {
  Query: `Reads. Each root field an operation runs counts as one request against the key's rate limit (an
alias is one more); an operation that counts as more than is left is refused whole (RATE_LIMITED).
A document holds at most 50 aliases, nests at most 10 levels (introspection aside) and asks for
at most about 20,000 values (a paged field times its pageSize; introspection what it returns).`,
  Mutation: `Changes: at most 10 root fields a request (GRAPHQL_VALIDATION_FAILED beyond), each one counting
as one request against the rate limit.`,
  Subscription: 'Live updates over graphql-ws; each event is the resource as its read answers it.',
};

/** What a field is made from: its coordinate, its declaration, its input; whether it takes a key. */
interface FieldSource {
  graphql: string;
  graphqlField: GraphQLFieldSpec;
  input: z.ZodType;
  idempotent?: boolean;
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const text = (description: string) => JSON.stringify(description);

/** The GraphQL scalar or enum a zod value is read as. */
function namedType(schema: z.ZodType): string {
  const def = defOf(schema);
  if (def.type === 'string')
    return def.format === 'uuid' ? 'ID' : def.format === 'datetime' ? 'DateTime' : 'String';
  if (def.type === 'number')
    return (schema as { format?: string | null }).format === 'safeint' ? 'Int' : 'Float';
  if (def.type === 'boolean') return 'Boolean';
  if (def.type === 'enum') return enumNamed(Object.values(def.entries as Record<string, string>));
  throw new Error(`an argument of type ${def.type} has no GraphQL type: declare an inputArg`);
}

/** An argument from one field of the input: its type, `!` when required, its default. */
function argument(name: string, schema: z.ZodType): string {
  let current = schema;
  let required = true;
  let fallback: unknown;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable') required = false;
    if (def.type === 'default' || def.type === 'prefault') {
      required = false;
      fallback ??= def.defaultValue;
    }
    if (['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(def.type)) {
      current = def.innerType as z.ZodType;
    } else if (def.type === 'pipe') current = def.out as z.ZodType;
    else break;
  }
  const description = descriptionOf(schema);
  const type = `${namedType(current)}${required ? '!' : ''}`;
  const value = fallback === undefined ? '' : ` = ${JSON.stringify(fallback)}`;
  return `${description ? `${text(description)} ` : ''}${name}: ${type}${value}`;
}

/**
 * A field's arguments: the input's fields, camelCased, its `id` named idArg (none on a field of a
 * resource, whose parent it is); with inputArg, the fields besides `id` as one input object. A
 * mutation of an idempotent operation takes an idempotency key too.
 */
function argumentsOf(source: FieldSource, onResource: boolean): string[] {
  const { graphqlField: field } = source;
  const shape = defOf(source.input).shape as Record<string, z.ZodType>;
  const args: string[] = [];
  if (shape.id && !onResource) args.push(argument(field.idArg ?? 'id', shape.id));
  if (field.inputArg) {
    args.push(`${text(field.inputArg.description)} input: ${field.inputArg.type}!`);
  } else {
    for (const [key, value] of Object.entries(shape))
      if (key !== 'id') args.push(argument(camel(key), value));
  }
  if (source.idempotent && source.graphql.startsWith('Mutation.')) {
    const noun = field.type.replace(/[![\]]/g, '').toLowerCase();
    const key = `Any string: a retry with the same key and input within 24 hours answers the first ${noun} again.`;
    args.push(`${text(key)} idempotencyKey: String`);
  }
  return args;
}

function fieldOf(source: FieldSource, onResource: boolean): string {
  const name = source.graphql.split('.')[1];
  const args = argumentsOf(source, onResource);
  const list = args.length === 0 ? '' : `(\n      ${args.join('\n      ')}\n    )`;
  return `    ${text(source.graphqlField.description)}\n    ${name}${list}: ${source.graphqlField.type}`;
}

/**
 * The schema's fields of the catalogue's operations and live subscriptions, made from their entries:
 * the root types (Query, Mutation, Subscription) and the fields of resources (Agent.promptVersions),
 * which extend the types declared in type-defs.ts. So an operation answering a type the schema has
 * needs no SDL of its own.
 */
export function operationTypeDefs(): string {
  const byType = new Map<string, string[]>();
  const sources: FieldSource[] = [...Object.values(OPERATIONS), ...Object.values(LIVE_OPERATIONS)];
  for (const source of sources) {
    const type = source.graphql.split('.')[0]!;
    const fields = byType.get(type) ?? [];
    fields.push(fieldOf(source, !(type in ROOTS)));
    byType.set(type, fields);
  }
  return [...byType]
    .map(([type, fields]) => {
      const head = type in ROOTS ? `"""\n${ROOTS[type]}\n"""\ntype ${type}` : `extend type ${type}`;
      return `${head} {\n${fields.join('\n')}\n}`;
    })
    .join('\n\n');
}
