import {
  __Schema,
  __Type,
  type DocumentNode,
  type ExecutionResult,
  executeSync,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  print,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from 'graphql';
import { type Fragments, fieldsOf, fragmentsOf } from './selection';

export const isIntrospectionRoot = (name: string) => name === '__schema' || name === '__type';

/** What an introspection field holds: one value or a list, of an object type or of leaves. */
interface Shape {
  list: boolean;
  object: GraphQLObjectType | undefined;
}

const shapes = new WeakMap<GraphQLField<unknown, unknown>, Shape>();

function shapeOf(field: GraphQLField<unknown, unknown>): Shape {
  let shape = shapes.get(field);
  if (!shape) {
    const named = getNamedType(field.type);
    shape = {
      list: isListType(isNonNullType(field.type) ? field.type.ofType : field.type),
      object: isObjectType(named) ? named : undefined,
    };
    shapes.set(field, shape);
  }
  return shape;
}

/**
 * How many values an introspection field returns (each leaf, null or empty list counts one), from
 * the schema itself rather than by building the answer. Introspection nests without end (a type's
 * fields' types' fields...), so what a query asks for says little about what it gets: this is the
 * real size. Each selection (alike ones once, whichever alias holds them) is counted once per
 * schema element it applies to, so the work stays small whatever the nesting.
 */
export class IntrospectionMeter {
  private readonly counted = new Map<string, Map<unknown, number>>();
  private readonly keys = new WeakMap<SelectionSetNode, string>();
  private readonly fields = new WeakMap<SelectionSetNode, FieldNode[]>();
  private readonly info: GraphQLResolveInfo;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Fragments,
  ) {
    // The introspection resolvers read only `schema` from it.
    this.info = { schema } as GraphQLResolveInfo;
  }

  /** `__schema`, or `__type(name:)` (named by a variable: the largest type's answer). */
  root(field: FieldNode): number {
    const set = field.selectionSet;
    if (!set) return 1;
    if (field.name.value === '__schema') return this.object(__Schema, this.schema, set);
    const name = field.arguments?.find((a) => a.name.value === 'name')?.value;
    if (name?.kind === Kind.STRING) {
      const type = this.schema.getType(name.value);
      return type ? this.object(__Type, type, set) : 1;
    }
    let most = 1;
    for (const type of Object.values(this.schema.getTypeMap()))
      most = Math.max(most, this.object(__Type, type, set));
    return most;
  }

  private object(type: GraphQLObjectType, source: object, set: SelectionSetNode): number {
    let key = this.keys.get(set);
    if (key === undefined) {
      key = `${type.name} ${print(set)}`;
      this.keys.set(set, key);
    }
    let bySource = this.counted.get(key);
    if (!bySource) {
      bySource = new Map();
      this.counted.set(key, bySource);
    }
    const known = bySource.get(source);
    if (known !== undefined) return known;
    let fields = this.fields.get(set);
    if (!fields) {
      fields = fieldsOf(set, this.fragments);
      this.fields.set(set, fields);
    }
    let total = 0;
    for (const field of fields) {
      const def = type.getFields()[field.name.value];
      const shape = def && shapeOf(def);
      if (!def?.resolve || !shape?.object || !field.selectionSet) {
        total += 1;
        continue;
      }
      let value: unknown;
      try {
        // Deprecated elements too: the most the field can return.
        value = def.resolve(source, { includeDeprecated: true }, undefined, this.info);
      } catch {
        value = null;
      }
      if (typeof value !== 'object' || value === null) total += 1;
      else if (!shape.list) total += this.object(shape.object, value, field.selectionSet);
      else {
        let items = 0;
        for (const item of value as Iterable<unknown>)
          items +=
            typeof item === 'object' && item !== null
              ? this.object(shape.object, item, field.selectionSet)
              : 1;
        total += Math.max(items, 1);
      }
    }
    bySource.set(source, total);
    return total;
  }
}

/** Introspection answers kept: a few clients' queries (GraphiQL's, codegen's), each one small. */
const CACHE_ENTRIES = 32;

/**
 * Introspection answers, executed once each: the schema never changes while the gateway runs.
 * An operation that asks only for introspection (`__schema`, `__type`, `__typename`) is answered
 * from here, field by field, so the same field asked again (under another alias, by another
 * client) costs a lookup instead of a walk of the whole schema.
 */
export class IntrospectionCache {
  private readonly answers = new Map<string, unknown>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** The result of an introspection-only query; undefined for any other (execute it as usual). */
  answer(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): ExecutionResult | undefined {
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== OperationTypeNode.QUERY) return undefined;
    const fragments = fragmentsOf(document);
    let directives = false;
    const fields = fieldsOf(operation.selectionSet, fragments, (selection) => {
      directives ||= (selection.directives?.length ?? 0) > 0;
      return true;
    });
    // @skip, @include and the like, at any level of the root: left to the executor.
    if (directives) return undefined;
    const data: Record<string, unknown> = {};
    for (const field of fields) {
      const key = field.alias?.value ?? field.name.value;
      // One key asked twice (merged): left to the executor.
      if (key in data) return undefined;
      if (field.name.value === '__typename') data[key] = this.schema.getQueryType()?.name;
      else if (isIntrospectionRoot(field.name.value)) {
        const value = this.field(field, operation.variableDefinitions ?? [], fragments, variables);
        if (value === undefined) return undefined;
        data[key] = value;
      } else return undefined;
    }
    return fields.length > 0 ? { data } : undefined;
  }

  private field(
    field: FieldNode,
    variableDefinitions: readonly VariableDefinitionNode[],
    fragments: Fragments,
    variables: Readonly<Record<string, unknown>> | null | undefined,
  ): unknown {
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [
        {
          kind: Kind.OPERATION_DEFINITION,
          operation: OperationTypeNode.QUERY,
          variableDefinitions,
          selectionSet: { kind: Kind.SELECTION_SET, selections: [{ ...field, alias: undefined }] },
        },
        ...Object.values(fragments),
      ],
    };
    const key = `${print(document)}\n${variableDefinitions.length > 0 ? JSON.stringify(variables ?? {}) : ''}`;
    if (this.answers.has(key)) return this.answers.get(key);
    const result = executeSync({ schema: this.schema, document, variableValues: variables ?? {} });
    // An error (a bad variable, say) is the executor's to answer, in its words.
    if (result.errors?.length || !result.data) return undefined;
    const value = result.data[field.name.value];
    if (this.answers.size >= CACHE_ENTRIES) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, value);
    return value;
  }
}
