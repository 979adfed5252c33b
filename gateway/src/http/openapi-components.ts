/**
 * fastify-type-provider-zod writes every schema registered with an `id` twice, whether a route uses
 * it or not: `X` as responses see it (zod's output) and `XInput` as requests see it (zod's input:
 * defaulted fields optional). Bodies refer to `XInput` and responses to `X`, so a request-only
 * schema leaves an unused `X` and a response-only one an unused `XInput`. This keeps one component
 * per shape: an `XInput` the same as its `X` is that `X`, an `XInput` without a used `X` is named
 * `X`, and a schema nothing refers to is dropped.
 */

const PREFIX = '#/components/schemas/';
const INPUT = 'Input';

type Json = unknown;
interface Doc {
  components?: { schemas?: Record<string, Json> };
}

/** The names of the schema components `value` refers to. */
function refsIn(value: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        found.add(child.slice(PREFIX.length));
      } else {
        refsIn(child, found);
      }
    }
  }
  return found;
}

/** `value` with its schema references renamed by `names` (unlisted names kept). */
function renamed(value: Json, names: ReadonlyMap<string, string>): Json {
  if (Array.isArray(value)) return value.map((item) => renamed(item, names));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        const name = child.slice(PREFIX.length);
        return [key, `${PREFIX}${names.get(name) ?? name}`];
      }
      return [key, renamed(child, names)];
    }),
  );
}

/**
 * Each `XInput` that is the same schema as `X` once every such pair is taken as one (the largest
 * set of pairs for which that holds: start with all of them, drop any that differ, repeat).
 */
function sameAsOutput(schemas: Record<string, Json>): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.slice(0, -INPUT.length);
    if (name.endsWith(INPUT) && base in schemas) pairs.set(name, base);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [input, output] of pairs) {
      const a = JSON.stringify(renamed(schemas[input], pairs));
      const b = JSON.stringify(renamed(schemas[output], pairs));
      if (a !== b) {
        pairs.delete(input);
        changed = true;
      }
    }
  }
  return pairs;
}

/** The components reachable from the rest of the document. */
function used(doc: Doc, schemas: Record<string, Json>): Set<string> {
  const { components, ...rest } = doc;
  const { schemas: _, ...otherComponents } = components ?? {};
  const reached = refsIn([rest, otherComponents]);
  const pending = [...reached];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    for (const next of refsIn(schemas[name])) {
      if (!reached.has(next)) {
        reached.add(next);
        pending.push(next);
      }
    }
  }
  return reached;
}

export function withTidySchemas<T extends Doc>(doc: T): T {
  const original = doc.components?.schemas;
  if (!original) return doc;
  const merged = renamed(doc, sameAsOutput(original)) as T;
  const schemas = merged.components?.schemas ?? {};
  const kept = used(merged, schemas);
  const names = new Map<string, string>();
  for (const name of kept) {
    const base = name.slice(0, -INPUT.length);
    if (name.endsWith(INPUT) && !kept.has(base)) names.set(name, base);
  }
  const tidy = renamed(merged, names) as T;
  const tidySchemas: Record<string, Json> = {};
  for (const name of Object.keys(schemas)) {
    if (kept.has(name)) tidySchemas[names.get(name) ?? name] = tidy.components?.schemas?.[name];
  }
  return { ...tidy, components: { ...tidy.components, schemas: tidySchemas } };
}
