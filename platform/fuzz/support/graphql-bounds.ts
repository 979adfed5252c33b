import { type DocumentNode, Kind, OperationTypeNode, parse, visit } from 'graphql';
import type { FuzzResponse } from './transport';

/** What docs/api-guide.md promises GraphQL refuses before running (checked here on its own terms). */
const MAX_ALIASES = 50;
const MAX_MUTATIONS = 10;
const MAX_TOKENS = 3000;
/** No answer the fuzz fixtures can ask for comes near this; the alias bomb answered 1.66 MB. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The document a GraphQL request carried (a POST's JSON body, or a GET's `query`), if it parses. */
function documentOf(target: string, body: Buffer | undefined): DocumentNode | undefined {
  let query: unknown;
  try {
    query = body?.length
      ? (JSON.parse(body.toString('utf8')) as { query?: unknown }).query
      : new URLSearchParams(target.split('?')[1] ?? '').get('query');
    return typeof query === 'string' ? parse(query, { maxTokens: MAX_TOKENS }) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a document must have been refused: too many aliases, or a mutation of too many root fields. */
function overBounds(document: DocumentNode): string | undefined {
  let aliases = 0;
  visit(document, {
    Field(field) {
      if (field.alias) aliases++;
    },
  });
  if (aliases > MAX_ALIASES) return `${aliases} aliases`;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== OperationTypeNode.MUTATION)
      continue;
    const keys = new Set(
      definition.selectionSet.selections.flatMap((s) =>
        s.kind === Kind.FIELD ? [(s.alias ?? s.name).value] : [],
      ),
    );
    if (keys.size > MAX_MUTATIONS) return `a mutation of ${keys.size} root fields`;
  }
  return undefined;
}

/** A GraphQL answer that ran what the bounds refuse (a 400 before anything runs), or grew past them. */
export function graphqlBoundProblems(
  sent: { target: string; body?: Buffer | undefined },
  response: FuzzResponse,
): string[] {
  if (response.body.length > MAX_ANSWER_BYTES) return [`GraphQL answer of ${response.body.length} bytes`];
  if (response.status !== 200) return [];
  const document = documentOf(sent.target, sent.body);
  const over = document && overBounds(document);
  return over ? [`GraphQL ran a document with ${over}`] : [];
}
