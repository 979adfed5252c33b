import fc from 'fast-check';
import {
  type GraphQLArgument,
  GraphQLEnumType,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  type GraphQLSchema,
  getNamedType,
} from 'graphql';
import { buildSchema } from '../../../gateway/src/graphql/schema';
import { type AuthChoice, authorizationFor } from './rest';
import type { HttpRequest } from './transport';
import { type Fixtures, fromPool, junkValue, oddString, wellFormed } from './values';

/** The schema the gateway serves (so new fields are fuzzed too). */
export function gatewaySchema(): GraphQLSchema {
  return buildSchema();
}

/** The value once in 15, else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 14, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

const ID_ARGS: Record<string, string> = {
  id: 'agent_id',
  agentId: 'agent_id',
  versionId: 'version_id',
  campaignId: 'campaign_id',
  callId: 'call_id',
};

/** A GraphQL literal for an input type: mostly of the right kind, sometimes not. */
function literal(
  type: GraphQLInputType,
  fixtures: Fixtures,
  name: string,
  depth: number,
): fc.Arbitrary<string> {
  if (type instanceof GraphQLNonNull) return literal(type.ofType, fixtures, name, depth);
  if (type instanceof GraphQLList) {
    return fc
      .array(literal(type.ofType, fixtures, name, depth + 1), { maxLength: 3 })
      .map((items) => `[${items.join(', ')}]`);
  }
  if (type instanceof GraphQLEnumType) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...type.getValues().map((value) => value.name)) },
      { weight: 1, arbitrary: fc.constantFrom('NOPE', 'completed', '"COMPLETED"', 'null', '1') },
    );
  }
  if (type instanceof GraphQLInputObjectType) {
    if (depth > 3) return fc.constant('{}');
    const fields = Object.values(type.getFields());
    return fc
      .tuple(
        ...fields.map((field) =>
          fc.option(
            literal(field.type, fixtures, field.name, depth + 1).map((value) => `${field.name}: ${value}`),
            {
              // fc.option leaves the value out once in `freq`: a required field rarely, others half the time.
              freq: field.type instanceof GraphQLNonNull ? 20 : 2,
            },
          ),
        ),
        rarely(fc.constantFrom('unknownField: 1', '__proto__: {}', 'constructor: "x"')),
      )
      .map((entries) => `{ ${entries.filter((entry) => entry !== null).join(', ')} }`);
  }
  const scalar = type instanceof GraphQLScalarType ? type.name : 'String';
  const str = (arb: fc.Arbitrary<string>) => arb.map((value) => JSON.stringify(value));
  const junk = fc.oneof(
    str(oddString),
    fc.constantFrom('null', '1', '-1', '1.5', 'true', '[]', '{}', '2147483648', '1e309', '"x"'),
  );
  let good: fc.Arbitrary<string>;
  switch (scalar) {
    case 'ID': {
      const real = fromPool(fixtures, ID_ARGS[name]);
      good = str(real ? fc.oneof(real, fc.uuid()) : fc.uuid());
      break;
    }
    case 'Int':
      good = fc.oneof(fc.integer({ min: -5, max: 150 }), fc.integer()).map(String);
      break;
    case 'Float':
      good = fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(n));
      break;
    case 'Boolean':
      good = fc.boolean().map(String);
      break;
    case 'DateTime':
      good = fc.constantFrom(
        '"2030-01-01T00:00:00Z"',
        '"2020-01-01T00:00:00.000+02:00"',
        '"2024-02-30T00:00:00Z"',
        '"yesterday"',
      );
      break;
    case 'JSON':
      good = fc.constantFrom(
        '{ a: 1 }',
        '{ phone: "+14155550100", name: "x" }',
        '[1, 2]',
        '"s"',
        'null',
        '{ __proto__: { admin: true } }',
      );
      break;
    default:
      good =
        name === 'cursor'
          ? str(fromPool(fixtures, 'cursor') ?? fc.string({ maxLength: 20 }))
          : name === 'url'
            ? fc.constantFrom(
                `"http://127.0.0.1:${fixtures.deadPort}/h"`,
                '"ftp://127.0.0.1/"',
                '"not a url"',
              )
            : name.toLowerCase().includes('number')
              ? fc.constantFrom('"+14155550100"', '"+14155550123"', '"555"', '"+0123456789"')
              : str(fc.string({ maxLength: 20 }));
  }
  return fc.oneof({ weight: 8, arbitrary: good }, { weight: 1, arbitrary: junk });
}

/** The variable type text of an input type (e.g. `[ID!]!`). */
function typeText(type: GraphQLInputType): string {
  return type.toString();
}

/** A selection set for an output type: its leaves, and at most one nested object, level by level. */
function selection(type: GraphQLOutputType, depth: number): fc.Arbitrary<string> {
  const named = getNamedType(type);
  if (!(named instanceof GraphQLObjectType)) return fc.constant('');
  const fields = Object.values(named.getFields());
  const leaves = fields.filter((field) => !(getNamedType(field.type) instanceof GraphQLObjectType));
  const nested = fields.filter((field) => getNamedType(field.type) instanceof GraphQLObjectType);
  if (leaves.length === 0) {
    // Only objects inside (`me { account key }`): select one of them.
    return fc
      .constantFrom(...nested)
      .chain((field: GraphQLField<unknown, unknown>) =>
        selection(field.type, depth + 1).map((inner) => `{ ${field.name} ${inner} }`),
      );
  }
  const leafPick = fc.subarray(
    leaves.map((field) => field.name),
    { minLength: 1 },
  );
  const nestedPick =
    depth < 3 && nested.length > 0
      ? fc.option(
          fc
            .constantFrom(...nested)
            .chain((field: GraphQLField<unknown, unknown>) =>
              selection(field.type, depth + 1).map((inner) => `${field.name} ${inner}`),
            ),
          { freq: 2 },
        )
      : fc.constant(null);
  return fc
    .tuple(leafPick, nestedPick)
    .map(([names, inner]) => `{ ${[...names, ...(inner ? [inner] : [])].join(' ')} }`);
}

interface Built {
  document: string;
  variables: Record<string, unknown>;
}

/** One root field as an operation: arguments inline or as variables (declared right or wrong). */
function rootOperation(schema: GraphQLSchema, fixtures: Fixtures): fc.Arbitrary<Built> {
  const roots: [string, GraphQLObjectType][] = [];
  for (const [keyword, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const) {
    if (type) roots.push([keyword, type]);
  }
  const fields = roots.flatMap(([keyword, type]) =>
    Object.values(type.getFields()).map(
      (field) => [keyword, field] as [string, GraphQLField<unknown, unknown>],
    ),
  );
  return fc.constantFrom(...fields).chain(([keyword, field]) => {
    const args = field.args as readonly GraphQLArgument[];
    const perArg = args.map((arg) =>
      fc.oneof(
        {
          weight: 12,
          arbitrary: literal(arg.type, fixtures, arg.name, 0).map((text) => ({ arg, inline: text })),
        },
        {
          weight: 7,
          arbitrary: fc
            .tuple(
              fc.oneof(
                { weight: 8, arbitrary: fc.constant(typeText(arg.type)) },
                { weight: 1, arbitrary: fc.constantFrom('String', 'Int!', '[ID]', 'JSON', 'Nope', 'ID!') },
              ),
              junkValue,
              literal(arg.type, fixtures, arg.name, 0),
              fc.nat(4).map((n) => n === 0),
            )
            .map(([declared, junk, text, useJunk]) => {
              let value: unknown = junk;
              if (!useJunk) {
                try {
                  value = JSON.parse(text);
                } catch {
                  value = text;
                }
              }
              return { arg, declared, value };
            }),
        },
        {
          weight: arg.type instanceof GraphQLNonNull ? 1 : 6,
          arbitrary: fc.constant({ arg, omitted: true }),
        },
      ),
    );
    return fc
      .tuple(fc.tuple(...perArg), selection(field.type, 0), rarely(fc.constantFrom('bogus: 1', 'extra: "x"')))
      .map(([choices, select, extraArg]) => {
        const declarations: string[] = [];
        const inline: string[] = [];
        const variables: Record<string, unknown> = {};
        for (const choice of choices) {
          if ('omitted' in choice) continue;
          if ('inline' in choice) inline.push(`${choice.arg.name}: ${choice.inline}`);
          else {
            declarations.push(`$${choice.arg.name}: ${choice.declared}`);
            inline.push(`${choice.arg.name}: $${choice.arg.name}`);
            variables[choice.arg.name] = choice.value;
          }
        }
        if (extraArg) inline.push(extraArg);
        const header = declarations.length > 0 ? `${keyword} Fuzz(${declarations.join(', ')})` : keyword;
        const argsText = inline.length > 0 ? `(${inline.join(', ')})` : '';
        return { document: `${header} { ${field.name}${argsText} ${select} }`, variables };
      });
  });
}

/** Documents no schema-aware client would write. */
const hostileDocument: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 11, max: 12_000 }).map((depth) => `{ ${'a { '.repeat(depth)}id${' }'.repeat(depth)} }`),
  // Each fragment spreads the one before twice: 2^n fields from n lines.
  fc
    .integer({ min: 5, max: 60 })
    .map(
      (n) =>
        `{ voices { ...F${n} } }\nfragment F0 on Voice { id }\n${Array.from(
          { length: n },
          (_, i) => `fragment F${i + 1} on Voice { ...F${i} ...F${i} }`,
        ).join('\n')}`,
    ),
  fc
    .integer({ min: 50, max: 1_500 })
    .map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: voices { id }`).join(' ')} }`),
  fc
    .integer({ min: 2, max: 200 })
    .map(
      (n) =>
        `{ ${Array.from({ length: n }, (_, i) => `c${i}: calls(pageSize: 100) { items { agent { promptVersions(pageSize: 100) { items { id } } } } }`).join(' ')} }`,
    ),
  // The attack run's: aliased introspection (1.66 MB and 0.9 s of CPU each at 160 aliases), and
  // aliased mutations (240 makeCall placed 240 calls for one place in the budget).
  fc
    .integer({ min: 2, max: 170 })
    .map(
      (n) =>
        `{ ${Array.from({ length: n }, (_, i) => `a${i}: __schema { types { fields { type { fields { name } } } } }`).join(' ')} }`,
    ),
  fc
    .integer({ min: 2, max: 300 })
    .map(
      (n) =>
        `mutation { ${Array.from({ length: n }, (_, i) => `m${i}: deleteAgent(id: "00000000-0000-4000-8000-000000000000")`).join(' ')} }`,
    ),
  fc.constantFrom(
    'fragment A on Query { ...B } fragment B on Query { ...A } { ...A }',
    'query A { voices { id } } query B { languages { code } }',
    'query { voices { id @skip(if: "yes") } }',
    'query { voices { id @nope } }',
    'query @deprecated { voices { id } }',
    'query ($a: Int = "x") { agents(page: $a) { total } }',
    'query ($a: Int!) { agents(page: $a) { total } }',
    'query ($a: Int, $a: Int) { agents(page: $a) { total } }',
    'subscription { callStatusChanged { id } }',
    'mutation { deleteAgent(id: "00000000-0000-0000-0000-000000000000") }',
    '{ __schema { types { name fields { name args { name type { name ofType { name ofType { name } } } } } } } }',
    '{ __type(name: "Agent") { name } }',
    '{ __typename }',
    '{ voices { id __typename } __typename }',
    '{ agents { items { promptVersions(pageSize: 1000000) { total } } } }',
    '{ agents(pageSize: -1) { total } }',
    '{ agents(page: 2147483647, pageSize: 100) { total } }',
    '{ calls(from: "2024-13-01T00:00:00Z") { total } }',
    '{ agent(id: "not-a-uuid") { id } }',
    '{ agentTypes(industry: "../../etc") { id } }',
    '{ agentTypes(industry: "\\u0000") { id } }',
    '{ voices { id } ',
    '{ voices { id } } }',
    '{ "voices" }',
    '{ voices(id: 1) { id } }',
    '{ voices { nope } }',
    '{ voices }',
    '# only a comment',
    '',
    ' ',
    '\ufeff{ voices { id } }',
    '{ voices { id } } \u0000',
    `{ voices { id } } ${'#'.repeat(100_000)}`,
    `"""${'x'.repeat(100_000)}""" query { voices { id } }`,
    `{ agentTypes(industry: "${'\\u0041'.repeat(20_000)}") { id } }`,
    `{ ${'...on Query { '.repeat(200)}voices { id }${' }'.repeat(200)} }`,
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
);

/** A valid-looking document, broken by a cut or an insertion. */
function garbled(document: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(
      document,
      fc.nat(),
      fc.nat({ max: 10 }),
      fc.constantFrom('', '{', '}', '(', ')', '$', '!', '"', '...', '@', ':', '\u0000', '#'),
    )
    .map(([text, at, cut, insert]) => {
      const position = at % (text.length + 1);
      return `${text.slice(0, position)}${insert}${text.slice(position + cut)}`;
    });
}

const AUTH_WEIGHTS: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<AuthChoice>('full') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<AuthChoice>('none', 'readOnly', 'other', 'revoked', 'admin', 'junk'),
  },
);

/** GraphQL over HTTP: generated and hostile documents, junk variables, odd transports. */
export function graphqlRequest(schema: GraphQLSchema, fixtures: Fixtures): fc.Arbitrary<HttpRequest> {
  const built = rootOperation(schema, fixtures);
  const document = fc.oneof(
    { weight: 6, arbitrary: built },
    {
      weight: 2,
      arbitrary: garbled(built.map((b) => b.document)).map((document) => ({ document, variables: {} })),
    },
    { weight: 2, arbitrary: hostileDocument.map((document) => ({ document, variables: {} })) },
  );
  const payload = fc
    .tuple(
      document,
      fc.oneof(
        { weight: 8, arbitrary: fc.constant<'ok'>('ok') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<
            'junk-variables' | 'junk-query' | 'junk-operation' | 'extensions' | 'missing-query'
          >('junk-variables', 'junk-query', 'junk-operation', 'extensions', 'missing-query'),
        },
      ),
      junkValue,
    )
    .map(([{ document, variables }, twist, junk]) => {
      const body: Record<string, unknown> = { query: document, variables };
      if (twist === 'junk-variables') body.variables = junk;
      if (twist === 'junk-query') body.query = junk;
      if (twist === 'junk-operation') body.operationName = junk;
      if (twist === 'extensions')
        body.extensions = { persistedQuery: { version: 1, sha256Hash: 'abc' }, junk };
      if (twist === 'missing-query') delete body.query;
      return body;
    });
  return fc
    .record({
      payload,
      transport: fc.oneof(
        { weight: 10, arbitrary: fc.constant<'post'>('post') },
        { weight: 2, arbitrary: fc.constant<'get'>('get') },
        {
          weight: 1,
          arbitrary: fc.constantFrom<'batch' | 'raw-json' | 'content-type' | 'get-csrf'>(
            'batch',
            'raw-json',
            'content-type',
            'get-csrf',
          ),
        },
      ),
      contentType: fc.constantFrom(
        'text/plain',
        'application/graphql',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
        'application/json; charset=utf-16',
      ),
      rawJson: fc.constantFrom(
        '{',
        '{"query":',
        '[]',
        '[{}]',
        'null',
        '"{ voices { id } }"',
        '{"query":"{ voices { id } }"',
        '{"query":["{ voices { id } }"]}',
      ),
      auth: AUTH_WEIGHTS.chain((choice) => authorizationFor(choice, fixtures)),
      accept: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'application/graphql-response+json',
            'application/json',
            '*/*',
            'text/html',
            'application/xml',
            'multipart/mixed',
          ),
        },
      ),
    })
    .map(({ payload, transport, contentType, rawJson, auth, accept }): HttpRequest => {
      const headers: [string, string][] = [...auth];
      if (accept) headers.push(['Accept', accept]);
      if (transport === 'get' || transport === 'get-csrf') {
        const params = new URLSearchParams();
        for (const [key, value] of Object.entries(payload)) {
          params.set(key, typeof value === 'string' ? wellFormed(value) : (JSON.stringify(value) ?? ''));
        }
        // Apollo refuses a GET without it (CSRF prevention); get-csrf leaves it out.
        if (transport === 'get') headers.push(['Apollo-Require-Preflight', 'true']);
        return { method: 'GET', target: `/graphql?${params.toString()}`, headers };
      }
      let body = Buffer.from(JSON.stringify(payload));
      let type = 'application/json';
      if (transport === 'batch') body = Buffer.from(JSON.stringify([payload, payload]));
      if (transport === 'raw-json') body = Buffer.from(rawJson);
      if (transport === 'content-type') type = contentType;
      if (type) headers.push(['Content-Type', type]);
      return { method: 'POST', target: '/graphql', headers, body };
    });
}
