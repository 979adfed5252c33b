import {
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { defOf, RESOLVED, unwrap } from '../src/graphql/descriptions';
import { enumValueName } from '../src/graphql/enums';
import { buildSchema } from '../src/graphql/schema';
import { OPERATIONS } from '../src/operations/catalogue';
import { defaultArgs } from '../src/operations/graphql-args';
import { LIVE_OPERATIONS } from '../src/operations/live';
import type { AnyOperation } from '../src/operations/operation';

/**
 * The GraphQL schema's types are written as SDL (its operations' fields are made from the
 * catalogue); this holds them to the zod contracts the operations answer,
 * so any drift (a field missing, a String where REST has an enum, a nullability that differs) fails.
 */
const schema = buildSchema();

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every difference between a GraphQL output type and the zod schema of what REST answers there. */
function drift(
  path: string,
  type: GraphQLOutputType,
  contract: z.ZodType,
  found: string[],
  seen: Set<string>,
) {
  const { schema: inner, nullable } = unwrap(contract);
  if (isNonNullType(type) === nullable) found.push(`${path}: nullable ${nullable} in the contract`);
  const bare = isNonNullType(type) ? type.ofType : type;
  const def = defOf(inner);
  if (def.type === 'array') {
    if (!isListType(bare)) return found.push(`${path}: a list in the contract`);
    return drift(`${path}[]`, bare.ofType, def.element as z.ZodType, found, seen);
  }
  if (isListType(bare)) return found.push(`${path}: not a list in the contract`);
  const named: GraphQLNamedType = getNamedType(bare);
  if (def.type === 'object') {
    if (!isObjectType(named)) return found.push(`${path}: ${named.name} where the contract has an object`);
    if (seen.has(`${named.name}:${path}`)) return;
    seen.add(`${named.name}:${path}`);
    const shape = def.shape as Record<string, z.ZodType>;
    const fields = named.getFields();
    for (const [key, value] of Object.entries(shape)) {
      const field = fields[camel(key)];
      if (RESOLVED.has(`${named.name}.${camel(key)}`)) continue;
      if (!field) found.push(`${named.name}.${camel(key)}: missing (${path}.${key})`);
      else drift(`${named.name}.${field.name}`, field.type, value, found, seen);
    }
    const contractFields = new Set(Object.keys(shape).map(camel));
    for (const name of Object.keys(fields)) {
      if (!contractFields.has(name) && !RESOLVED.has(`${named.name}.${name}`))
        found.push(`${named.name}.${name}: not in the contract`);
    }
    return;
  }
  // A constant (direction `outbound`, currency `USD`) may be a String.
  if (def.type === 'literal' && isScalarType(named) && named.name === 'String') return;
  // So may a union of strings (a calling window's zone: `recipient` or an IANA name).
  if (def.type === 'union' && isScalarType(named) && named.name === 'String') {
    const members = (def.options as z.ZodType[]).map((option) => defOf(unwrap(option).schema));
    const strings = members.every(
      (m) =>
        m.type === 'string' ||
        (m.type === 'literal' && (m.values as unknown[]).every((v) => typeof v === 'string')),
    );
    if (strings) return;
  }
  if (def.type === 'enum' || def.type === 'literal') {
    const values = def.type === 'enum' ? Object.values(def.entries as object) : (def.values as unknown[]);
    if (!isEnumType(named)) return found.push(`${path}: ${named.name} where the contract has an enum`);
    const have = named.getValues().map((v) => v.name);
    expect(have.sort(), path).toEqual(values.map((v) => enumValueName(String(v))).sort());
    return;
  }
  if (!isScalarType(named)) return found.push(`${path}: ${named.name} where the contract has ${def.type}`);
  const scalars: Record<string, string[]> = {
    string: ['String', 'ID', 'DateTime'],
    boolean: ['Boolean'],
    number: (inner as { format?: string }).format === 'safeint' ? ['Int'] : ['Float'],
    record: ['JSON'],
    unknown: ['JSON'],
  };
  if (!(scalars[def.type] ?? []).includes(named.name))
    found.push(`${path}: ${named.name} where the contract has ${def.type}`);
}

function fieldAt(coordinate: string): GraphQLField<unknown, unknown> | undefined {
  const [typeName, fieldName] = coordinate.split('.') as [string, string];
  const type = schema.getType(typeName);
  return isObjectType(type) ? type.getFields()[fieldName] : undefined;
}

describe('the GraphQL schema and the contracts', () => {
  it('has a field for every operation of the catalogue, and none that runs no operation', () => {
    const declared = new Set<string>(Object.values(OPERATIONS).map((op) => op.graphql));
    for (const op of Object.values(OPERATIONS)) expect(fieldAt(op.graphql), op.name).toBeDefined();
    for (const op of Object.values(LIVE_OPERATIONS)) declared.add(op.graphql);
    const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap(
      (root) => Object.keys(root?.getFields() ?? {}).map((field) => `${root?.name}.${field}`),
    );
    expect(roots.filter((coordinate) => !declared.has(coordinate))).toEqual([]);
  });

  it.each(Object.values(OPERATIONS).map((op) => [op.name, op] as const))(
    'answers %s as its contract does',
    (_name, op) => {
      const field = fieldAt(op.graphql)!;
      const found: string[] = [];
      // A delete answers whether it deleted: the reply's one boolean.
      const reply = defOf(op.reply).type === 'object' && 'deleted' in (defOf(op.reply).shape as object);
      if (reply) expect(getNamedType(field.type).name).toBe('Boolean');
      else drift(op.graphql, field.type, op.reply, found, new Set());
      // A root read of one resource is null when it failed (NOT_FOUND in errors): only it may differ there.
      const atRoot = `${op.graphql}: nullable`;
      expect(found.filter((problem) => !problem.startsWith(atRoot))).toEqual([]);
    },
  );

  it.each(Object.values(LIVE_OPERATIONS).map((op) => [op.name, op] as const))(
    'streams %s as its contract answers',
    (_name, op) => {
      const field = fieldAt(op.graphql);
      expect(field).toBeDefined();
      const found: string[] = [];
      drift(op.graphql, field!.type, op.reply, found, new Set());
      expect(found).toEqual([]);
    },
  );

  it.each(
    (Object.values(OPERATIONS) as AnyOperation[])
      .filter((op) => op.graphqlArgs === undefined)
      .map((op) => [op.name, op] as const),
  )('reads the input of %s from its field arguments by default', (_name, op) => {
    const field = fieldAt(op.graphql)!;
    const args = Object.fromEntries(field.args.map((arg) => [arg.name, 'a value']));
    const onResource = !/^(Query|Mutation)\./.test(op.graphql);
    const input = defaultArgs(op.graphqlField.idArg, onResource)(args, { id: 'the parent' });
    const keys = Object.keys(defOf(op.input).shape as object);
    expect(Object.keys(input).sort()).toEqual(keys.sort());
  });
});
