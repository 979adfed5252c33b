/**
 * What a route states about itself for the OpenAPI document beyond its zod schemas: its
 * operationId and the example of its request body.
 */

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A request body the document shows, and that Swagger UI's "Try it out" sends as it is. Ids
     * in it are placeholders (see EXAMPLE_IDS in the contracts): they name nothing real.
     */
    bodyExample?: unknown;
  }
}

/**
 * The operationId of an operation named as the catalogue names them (its tRPC path):
 * `agents.versions.list` -> `agentsVersionsList`. REST's own operations take a name of the same
 * form, so an operation that later joins the catalogue under that name keeps its id.
 */
export function operationId(name: string): string {
  return name
    .split('.')
    .map((part, index) => (index === 0 ? part : `${part.charAt(0).toUpperCase()}${part.slice(1)}`))
    .join('');
}

/** Where a route's bodyExample waits, on its operation, until the document is complete. */
const EXAMPLE_KEY = 'x-body-example';

interface TransformedRoute {
  schema: { bodyExample?: unknown };
  url: string;
}

/**
 * A route's bodyExample, kept on its operation (@fastify/swagger copies `x-` keys there; an
 * `examples` beside a body's `$ref` would be lost) for withBodyExamples to place.
 */
export function withBodyExampleKey<T extends TransformedRoute>(route: T): T {
  const { bodyExample, ...schema } = route.schema;
  return { ...route, schema: bodyExample === undefined ? schema : { ...schema, [EXAMPLE_KEY]: bodyExample } };
}

type Operation = Record<string, unknown> & {
  requestBody?: { content?: Record<string, { example?: unknown }> };
};
interface Doc {
  paths?: Record<string, Record<string, Operation>>;
}

/**
 * Each operation's body example as its JSON request body's media-type `example`: what Swagger UI's
 * "Try it out" fills in, and what code generators and linters read.
 */
export function withBodyExamples<T extends Doc>(doc: T): T {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!(EXAMPLE_KEY in operation)) continue;
      const media = operation.requestBody?.content?.['application/json'];
      if (media) media.example = operation[EXAMPLE_KEY];
      delete operation[EXAMPLE_KEY];
    }
  }
  return doc;
}
