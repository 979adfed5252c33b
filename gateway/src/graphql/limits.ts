import {
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { IntrospectionMeter, isIntrospectionRoot } from './introspection';
import { type Fragments, fieldsOf, fragmentsOf } from './selection';

/** Tokens a document may have: far more than any real query, far fewer than overflow the parser. */
export const MAX_TOKENS = 3000;
/**
 * Deepest selection nesting a query may have (the schema's deepest useful path is about 6).
 * Introspection (`__schema`, `__type`) is exempt: it is weighed by what it returns instead.
 */
export const MAX_DEPTH = 10;
/**
 * Estimated values a query may ask for: each field counts 1, a paged field times its pageSize, and
 * an introspection field (`__schema`, `__type`) what it really returns.
 */
export const MAX_COMPLEXITY = 20_000;
/** Aliases a document may hold: each runs its field once more, so they multiply what one request does. */
export const MAX_ALIASES = 50;
/** Root fields a mutation may have: each one is a change (a call placed, a campaign created). */
export const MAX_MUTATIONS = 10;
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

interface Measuring {
  fragments: Fragments;
  memo: Map<string, Measure | 'measuring'>;
  introspection: IntrospectionMeter;
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
function measure(set: SelectionSetNode | undefined, measuring: Measuring): Measure {
  if (!set) return { depth: 0, cost: 0 };
  let depth = 0;
  let cost = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD && isIntrospectionRoot(selection.name.value)) {
      // Exempt from the depth limit (the standard introspection query nests 14 levels), as its
      // weight is what it really returns, whatever the nesting.
      depth = Math.max(depth, 1);
      cost += measuring.introspection.root(selection);
      continue;
    }
    if (selection.kind === Kind.FIELD) {
      const inner = measure(selection.selectionSet, measuring);
      depth = Math.max(depth, inner.depth + (selection.selectionSet ? 1 : 0));
      cost += 1 + multiplier(selection) * inner.cost;
      continue;
    }
    let inner: Measure;
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const { memo, fragments } = measuring;
      const known = memo.get(name);
      if (known === 'measuring') continue;
      if (known) inner = known;
      else {
        memo.set(name, 'measuring');
        inner = measure(fragments[name]?.selectionSet, measuring);
        memo.set(name, inner);
      }
    } else inner = measure(selection.selectionSet, measuring);
    depth = Math.max(depth, inner.depth);
    cost += inner.cost;
  }
  return { depth, cost };
}

const invalid = (message: string, nodes: ASTNode | ASTNode[], http?: { status: number }) =>
  new GraphQLError(message, {
    nodes,
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', ...(http ? { http } : {}) },
  });

/**
 * Refuses, before anything runs, a query nested deeper than MAX_DEPTH (introspection aside) or estimated above
 * MAX_COMPLEXITY, a document with more than MAX_ALIASES aliases, and a mutation of more than
 * MAX_MUTATIONS root fields.
 */
export function queryLimits(context: ValidationContext): ASTVisitor {
  const document = context.getDocument();
  const fragments = fragmentsOf(document);
  return {
    Document() {
      const refusal = aliasRefusal(document);
      if (!refusal) return undefined;
      context.reportError(refusal);
      // Refused already: not worth measuring.
      return false;
    },
    OperationDefinition(operation) {
      const introspection = new IntrospectionMeter(context.getSchema(), fragments);
      const { depth, cost } = measure(operation.selectionSet, { fragments, memo: new Map(), introspection });
      if (depth > MAX_DEPTH) {
        context.reportError(
          invalid(`Query is nested ${depth} levels deep; the limit is ${MAX_DEPTH}`, operation),
        );
      } else if (cost > MAX_COMPLEXITY) {
        context.reportError(
          invalid(
            `Query could return about ${cost} values; the limit is ${MAX_COMPLEXITY}. Ask for smaller pages or fewer nested lists`,
            operation,
          ),
        );
      }
      if (operation.operation !== OperationTypeNode.MUTATION) return;
      const changes = new Set(
        fieldsOf(operation.selectionSet, fragments).map((f) => (f.alias ?? f.name).value),
      );
      if (changes.size > MAX_MUTATIONS) {
        context.reportError(
          invalid(
            `The mutation has ${changes.size} root fields; the limit is ${MAX_MUTATIONS} a request. Send the rest in further requests`,
            operation,
          ),
        );
      }
    },
  };
}

/**
 * A document with more than MAX_ALIASES aliases, refused. Checked from the parse alone before the
 * document is validated too: validating a document of thousands of tokens costs ten times its parse.
 */
export function aliasRefusal(document: DocumentNode, http?: { status: number }): GraphQLError | undefined {
  const aliased = aliasesIn(document);
  if (aliased.length <= MAX_ALIASES) return undefined;
  return invalid(
    `The document has ${aliased.length} aliases; the limit is ${MAX_ALIASES} (each alias runs its field again)`,
    aliased[MAX_ALIASES]!,
    http,
  );
}

/** Every aliased field written in the document (in operations and fragments alike). */
function aliasesIn(document: DocumentNode): FieldNode[] {
  const found: FieldNode[] = [];
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD && selection.alias) found.push(selection);
      if (selection.kind !== Kind.FRAGMENT_SPREAD) walk(selection.selectionSet);
    }
  };
  for (const definition of document.definitions)
    if ('selectionSet' in definition) walk(definition.selectionSet);
  return found;
}
