import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/** Deepest selection nesting a query may have (the schema's deepest useful path is about 6). */
export const MAX_DEPTH = 10;
/** Estimated records a query may ask for: each field counts 1, a paged field times its pageSize. */
export const MAX_COMPLEXITY = 20_000;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
/** Fields that answer a page (they take page and pageSize). */
const PAGED_FIELDS = new Set([
  'agents',
  'calls',
  'campaigns',
  'promptVersions',
  'webhookDeliveries',
  'contacts',
]);

interface Measure {
  depth: number;
  cost: number;
}

/** The page size a field asks for: its literal, or the most a variable could ask for. */
function multiplier(field: FieldNode): number {
  const arg = field.arguments?.find((a) => a.name.value === 'pageSize');
  if (!arg) return PAGED_FIELDS.has(field.name.value) ? DEFAULT_PAGE_SIZE : 1;
  if (arg.value.kind === Kind.INT) return Math.min(Number(arg.value.value), MAX_PAGE_SIZE);
  return arg.value.kind === Kind.VARIABLE ? MAX_PAGE_SIZE : DEFAULT_PAGE_SIZE;
}

/**
 * Depth and cost of a selection set. Each fragment is measured once (memo): measured again at every
 * spread, a chain of fragments that each spread the one before twice cost 2^n steps, so a 1 KB
 * query could hold the event loop for minutes. A fragment still being measured is a cycle (the
 * standard rules report it) and counts 0.
 */
function measure(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  memo: Map<string, Measure | 'measuring'>,
): Measure {
  if (!set) return { depth: 0, cost: 0 };
  let depth = 0;
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const inner = measure(selection.selectionSet, fragments, memo);
      depth = Math.max(depth, inner.depth + (selection.selectionSet ? 1 : 0));
      cost += 1 + multiplier(selection) * inner.cost;
      continue;
    }
    let inner: Measure;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const known = memo.get(name);
      if (known === 'measuring') continue;
      if (known) inner = known;
      else {
        memo.set(name, 'measuring');
        inner = measure(fragments[name]?.selectionSet, fragments, memo);
        memo.set(name, inner);
      }
    } else inner = measure(selection.selectionSet, fragments, memo);
    depth = Math.max(depth, inner.depth);
    cost += inner.cost;
  }
  return { depth, cost };
}

/** Refuses a query nested deeper than MAX_DEPTH or estimated above MAX_COMPLEXITY, before it runs. */
export function queryLimits(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      const fragments = Object.fromEntries(
        context
          .getDocument()
          .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
          .map((d) => [d.name.value, d]),
      );
      const { depth, cost } = measure(operation.selectionSet, fragments, new Map());
      if (depth > MAX_DEPTH) {
        context.reportError(
          new GraphQLError(`Query is nested ${depth} levels deep; the limit is ${MAX_DEPTH}`, {
            nodes: [operation],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }),
        );
      } else if (cost > MAX_COMPLEXITY) {
        context.reportError(
          new GraphQLError(
            `Query could return about ${cost} values; the limit is ${MAX_COMPLEXITY}. Ask for smaller pages or fewer nested lists`,
            { nodes: [operation], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
          ),
        );
      }
    },
  };
}
