import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  isObjectType,
} from 'graphql';
import type { z } from 'zod';
import { OPERATIONS } from '../operations/catalogue';
import { snake } from '../operations/graphql-args';
import { LIVE_OPERATIONS } from '../operations/live';

type Def = { type: string } & Record<string, unknown>;
export const defOf = (schema: z.ZodType) => schema._zod.def as unknown as Def;

const WRAPPERS = new Set(['nullable', 'optional', 'default', 'prefault', 'readonly']);

/** The schema under wrappers that change neither the shape nor (for a reply) the nullability. */
export function unwrap(schema: z.ZodType): { schema: z.ZodType; nullable: boolean } {
  let nullable = false;
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.type === 'nullable' || def.type === 'optional') nullable = true;
    if (WRAPPERS.has(def.type)) current = def.innerType as z.ZodType;
    else if (def.type === 'pipe') current = def.out as z.ZodType;
    else return { schema: current, nullable };
  }
}

/** The description nearest the outside: the field's own, else the one of the type it wraps. */
export function descriptionOf(schema: z.ZodType): string | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current.description) return current.description;
    const def = defOf(current);
    current = (WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.out : undefined) as
      | z.ZodType
      | undefined;
  }
  return undefined;
}

/**
 * Fields GraphQL resolves itself, from other operations or the record (Call.agent is the agent as it is
 * now, where the record holds the one it called with, as agentName): no contract field stands for them.
 */
export const RESOLVED = new Set([
  'Agent.promptVersions',
  'Agent.promptVersionStatus',
  'Agent.webhookDeliveries',
  'Call.agent',
  'Call.agentName',
  'Campaign.agent',
  'Campaign.contacts',
]);

/** The schema under its wrappers and lists: what a GraphQL named type stands for. */
function itemOf(schema: z.ZodType): z.ZodType {
  let inner = unwrap(schema).schema;
  while (defOf(inner).type === 'array') inner = unwrap(defOf(inner).element as z.ZodType).schema;
  return inner;
}

/** The object fields of a zod schema (an object under its wrappers), or none. */
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  const def = defOf(itemOf(schema));
  return def.type === 'object' ? (def.shape as Record<string, z.ZodType>) : {};
}

interface Described {
  description?: string | null | undefined;
}
const describe = (target: Described, from: string | undefined) => {
  if (!target.description && from) target.description = from;
};

/** A type and its fields, from the object the contract has at the same place, recursively. */
function describeType(type: GraphQLOutputType | GraphQLInputType, contract: z.ZodType) {
  const named = getNamedType(type);
  if (!isObjectType(named) && !isInputObjectType(named)) return;
  describe(named, itemOf(contract).description);
  const shape = shapeOf(contract);
  for (const field of Object.values(named.getFields())) {
    const value = shape[snake(field.name)];
    if (!value || RESOLVED.has(`${named.name}.${field.name}`)) continue;
    describe(field, descriptionOf(value));
    describeType(field.type, value);
  }
}

function fieldAt(schema: GraphQLSchema, coordinate: string): GraphQLField<unknown, unknown> | undefined {
  const [typeName, fieldName] = coordinate.split('.') as [string, string];
  const type = schema.getType(typeName);
  return isObjectType(type) ? type.getFields()[fieldName] : undefined;
}

/**
 * Descriptions are written once, in the zod contracts (which the OpenAPI document shows too), and
 * set here on the GraphQL types and fields that stand for them: each operation's field is paired
 * with its reply and its input object arguments with its input, as graphql-contracts.test.ts holds
 * them. A description the SDL gives (what has no contract: connections, fields GraphQL resolves
 * itself, enums) is kept.
 */
export function describeFromContracts(schema: GraphQLSchema): void {
  for (const op of [...Object.values(OPERATIONS), ...Object.values(LIVE_OPERATIONS)]) {
    const field = fieldAt(schema, op.graphql);
    if (!field) continue;
    // The arguments were described from the input as the field was made (operation-fields.ts);
    // an input object argument's type is described here, from the input's fields.
    for (const arg of field.args)
      if (isInputObjectType(getNamedType(arg.type))) describeType(arg.type, op.input);
    describeType(field.type, op.reply);
  }
}
