import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  type InlineFragmentNode,
  Kind,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

export type Fragments = Record<string, FragmentDefinitionNode>;

export function fragmentsOf(document: DocumentNode): Fragments {
  return Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
}

/**
 * The fields a selection set asks for, its fragments spread in, leaving out what `included` says
 * is not (by default everything is). Each named fragment is spread once per set: again adds
 * nothing, and a chain of fragments each spreading the one before twice would otherwise grow as
 * 2^n. A cycle (which validation reports) ends there.
 */
export function fieldsOf(
  set: SelectionSetNode | undefined,
  fragments: Fragments,
  included: (selection: SelectionNode) => boolean = () => true,
  spread: Set<string> = new Set(),
): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of set?.selections ?? []) {
    if (!included(selection)) continue;
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT)
      fields.push(...fieldsOf(selection.selectionSet, fragments, included, spread));
    else if (!spread.has(selection.name.value)) {
      spread.add(selection.name.value);
      fields.push(...fieldsOf(fragments[selection.name.value]?.selectionSet, fragments, included, spread));
    }
  }
  return fields;
}

/** Whether @skip and @include let a selection run with these variables (a bad value: it counts). */
export function runsWith(variables: Readonly<Record<string, unknown>>) {
  return (selection: FieldNode | InlineFragmentNode | SelectionNode): boolean => {
    if (!selection.directives?.length) return true;
    try {
      if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if === true) return false;
      return getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false;
    } catch {
      return true;
    }
  };
}
