import fc from 'fast-check';
import type { JsonSchema } from './openapi';

/**
 * Real resources the fuzz points at (so requests get past "not found" into the services), by the
 * name of the parameter or field that takes them, and the keys it calls with.
 */
export interface Fixtures {
  ids: Record<string, string[]>;
  /** A loopback port nothing listens on: the only place generated webhook URLs point to. */
  deadPort: number;
  keys: {
    /** Full access, enterprise budget (the fuzz is not about 429s). */
    full: string;
    /** agents:read only. */
    readOnly: string;
    /** Another account's key: its resources must look missing. */
    other: string;
    revoked: string;
    admin: string;
  };
  /** A valid signed recording link's query (expires, signature) for a real call, when there is one. */
  recordingQuery: Record<string, string> | undefined;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The string with lone surrogates replaced (they have no UTF-8 form, so no URL or header form). */
export function wellFormed(value: string): string {
  return value.replace(LONE_SURROGATE, '\ufffd');
}

/** encodeURIComponent that takes any string. */
export function uri(value: string): string {
  return encodeURIComponent(wellFormed(value));
}

/**
 * A real id of the named kind, read from the pool when the case is generated: the pools are
 * restocked as the fuzz deletes what they hold, so later cases still reach live resources.
 */
export function fromPool(fixtures: Fixtures, name: string | undefined): fc.Arbitrary<string> | undefined {
  const pool = name ? fixtures.ids[name] : undefined;
  if (!pool || pool.length === 0) return undefined;
  return fc.nat().map((i) => pool[i % pool.length]!);
}

/** Strings that have broken parsers, databases and loggers before. */
export const ODD_STRINGS = [
  '',
  ' ',
  '\t\r\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202eevil',
  '\u200b',
  '\u2028\u2029',
  '\uffff',
  'e\u0301\u0301\u0301',
  '\u{1f44d}\u{1f3fd}',
  '\u{10ffff}',
  'İı ß ﬃ',
  '９９',
  'Ω≈ç√',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  "'; DROP TABLE agents; --",
  '" OR 1=1 --',
  '\\',
  '%',
  '%00',
  '%ZZ',
  '%c0%ae%c0%ae/',
  '../../../../etc/passwd',
  '..\\..\\windows',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, sent as text
  '${jndi:ldap://127.0.0.1/x}',
  '{{7*7}}',
  '$where',
  '=HYPERLINK("x")',
  '@SUM(1)',
  'a'.repeat(101),
  'a'.repeat(2001),
  'é'.repeat(20_000),
];

export const HOSTILE_NUMBERS = [
  0,
  -0,
  -1,
  0.5,
  1.5,
  -1.5,
  100,
  101,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
];

/** Number literals JSON allows and JavaScript numbers cannot hold exactly (or at all). */
export const NUMBER_TEXTS = [
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '-0',
  '0.0000000000000000000000001',
  '1E2',
  '1.0',
  '9007199254740993',
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Own enumerable keys that JavaScript treats specially. */
const ODD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  '',
  ' ',
  'a.b',
  '$ne',
  '\u0000',
];

/** An object literal that may carry `__proto__` as an own key, as JSON.parse would build it. */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
  }
  return object;
}

/** Any JSON value, biased toward the awkward ones. */
export const junkValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    oddString,
    oddNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 10 })), tie('value')), {
        maxLength: 4,
      })
      .map(objectOf),
    fc.constantFrom(
      { constructor: { prototype: { admin: true } } },
      objectOf([['__proto__', { admin: true }]]),
    ),
  ),
})).value;

const isoDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** URLs for webhook fields: loopback only (the fuzz must never make the platform call out), or junk. */
function urlValue(fixtures: Fixtures): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      `http://127.0.0.1:${fixtures.deadPort}/hook`,
      `http://localhost:${fixtures.deadPort}/`,
      `http://[::1]:${fixtures.deadPort}/x?y=1`,
      `https://127.0.0.1:${fixtures.deadPort}`,
      'ftp://127.0.0.1/x',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'http://',
      'http:///x',
      'http://user:pass@127.0.0.1:1/',
      `http://127.0.0.1:${fixtures.deadPort}/${'a'.repeat(3000)}`,
      'http://0x7f.1:1/',
      'http://127.1:1/',
      'http://[::ffff:127.0.0.1]:1/',
      'http://169.254.169.254.invalid/',
    ),
    oddString,
  );
}

/** A string a field of this name and schema plausibly takes (valid ids preferred to random ones). */
function stringValue(schema: JsonSchema, name: string | undefined, fixtures: Fixtures): fc.Arbitrary<string> {
  const real = fromPool(fixtures, name);
  if (real) return fc.oneof({ weight: 3, arbitrary: real }, fc.uuid());
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return isoDate;
  if (name === 'url' || schema.format === 'uri') return urlValue(fixtures);
  if (schema.pattern) {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((s) => s.length <= (schema.maxLength ?? 200));
    } catch {
      // A pattern JavaScript cannot compile: any string will do.
    }
  }
  const min = schema.minLength ?? 0;
  return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(schema.maxLength ?? 30, 30)) });
}

/**
 * A value the schema plausibly accepts: the base that mutations then break. Not always valid (the
 * schema's refinements are not all in the document), which is fine for a fuzz.
 */
export function plausible(
  schema: JsonSchema,
  fixtures: Fixtures,
  name?: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((alt) => plausible(alt, fixtures, name, depth + 1)));
  }
  if (schema.allOf && schema.allOf.length > 0) {
    return plausible(Object.assign({}, ...schema.allOf) as JsonSchema, fixtures, name, depth + 1);
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) {
    return fc.oneof(...types.map((type) => plausible({ ...schema, type }, fixtures, name, depth + 1)));
  }
  switch (types[0]) {
    case 'string':
      return stringValue(schema, name, fixtures);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -1_000_000),
        max: Math.min(schema.maximum ?? 1000, 1_000_000),
      });
    case 'number':
      return fc.double({
        min: Math.max(schema.minimum ?? -1000, -1e6),
        max: Math.min(schema.maximum ?? 1000, 1e6),
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = schema.minItems ?? 0;
      return fc.array(plausible(schema.items ?? {}, fixtures, undefined, depth + 1), {
        minLength: min,
        maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const known = Object.entries(properties).map(
        ([key, value]) =>
          [key, plausible(value, fixtures, key, depth + 1), required.has(key)] as [
            string,
            fc.Arbitrary<unknown>,
            boolean,
          ],
      );
      const extra =
        schema.additionalProperties && typeof schema.additionalProperties === 'object'
          ? fc.dictionary(
              fc.string({ minLength: 1, maxLength: 12 }),
              plausible(schema.additionalProperties, fixtures, undefined, depth + 1),
              { maxKeys: 3 },
            )
          : fc.constant({});
      return fc
        .tuple(
          fc.tuple(
            ...known.map(([key, arb, isRequired]) =>
              isRequired
                ? arb.map((value) => [key, value] as const)
                : fc.option(
                    arb.map((value) => [key, value] as const),
                    { freq: 2 },
                  ),
            ),
          ),
          extra,
        )
        .map(([entries, more]) => ({
          ...more,
          ...Object.fromEntries(entries.filter((entry) => entry !== null) as [string, unknown][]),
        }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Path = (string | number)[];

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (path.length > 8) return out;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      pathsOf(item, [...path, index], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value))
      pathsOf((value as Record<string, unknown>)[key], [...path, key], out);
  }
  return out;
}

export interface Mutation {
  at: number;
  kind: 'replace' | 'delete' | 'add' | 'wrap' | 'stringify' | 'duplicate-array';
  key: string;
  value: unknown;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'replace', 'delete', 'add', 'wrap', 'stringify', 'duplicate-array'),
  key: fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ maxLength: 12 })),
  value: junkValue,
});

/** Breaks one place of a (copied) JSON value; the root itself may be replaced. */
export function mutate(root: unknown, change: Mutation): unknown {
  const paths = pathsOf(root);
  const path = paths[change.at % paths.length]!;
  const apply = (value: unknown): unknown => {
    switch (change.kind) {
      case 'replace':
        return change.value;
      case 'wrap':
        return [value];
      case 'stringify':
        return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
      case 'duplicate-array':
        return Array.isArray(value) ? Array.from({ length: 50 }, () => value[0] ?? null) : value;
      case 'add':
        return value !== null && typeof value === 'object' && !Array.isArray(value)
          ? objectOf([...Object.entries(value), [change.key, change.value]])
          : change.value;
      case 'delete':
        return undefined;
    }
  };
  if (path.length === 0) return apply(root) ?? null;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  const next = apply(parent[last]);
  if (next === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (last === '__proto__') {
    Object.defineProperty(parent, last, {
      value: next,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  } else parent[last] = next;
  return copy;
}

/** A plausible value with a few of its parts broken. */
export function mutated(schema: JsonSchema, fixtures: Fixtures, name?: string): fc.Arbitrary<unknown> {
  return fc
    .tuple(plausible(schema, fixtures, name), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([value, changes]) => changes.reduce(mutate, value));
}
