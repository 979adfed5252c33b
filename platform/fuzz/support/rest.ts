import fc from 'fast-check';
import { fillPath, type Operation, type Parameter, pathParameters } from './openapi';
import type { HttpRequest } from './transport';
import {
  type Fixtures,
  fromPool,
  junkValue,
  mutated,
  NUMBER_TEXTS,
  ODD_STRINGS,
  oddString,
  plausible,
  uri,
} from './values';

/** Any JSON encoder's output, and the texts no JSON encoder produces. */
export interface Body {
  bytes: Buffer | undefined;
  contentType: string | undefined;
}

export const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/problem+json',
  'application/json; charset=utf-16le',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/json, text/plain',
  'application/jsonx',
  'application/x-json',
  'text/json',
  'text/plain',
  'text/csv',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'multipart/form-data',
  'application/graphql',
  'application/octet-stream',
  'application/xml',
  '*/*',
  'json',
  '',
  ' ',
  ';',
  'application/',
  '/json',
];

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

const deepText = fc
  .tuple(fc.integer({ min: 20, max: 20_000 }), fc.constantFrom('[', '{"a":'), fc.boolean())
  .map(([depth, open, closed]) => {
    const close = open === '[' ? ']' : '}';
    return `${open.repeat(depth)}1${closed ? close.repeat(depth) : ''}`;
  });

/** Not-quite-JSON: what hand-written or truncated bodies look like. */
const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":}',
    "{'name':'x'}",
    '{"name":"x",}',
    '[1,2,]',
    '{"name":"x"}{"name":"y"}',
    '{"name":"x"} trailing',
    '\ufeff{"name":"x"}',
    '{"name":NaN}',
    '{"name":Infinity}',
    '{"name":undefined}',
    '/* c */ {}',
    '{"name":"\\ud800"}',
    '{"name":"\\u0000"}',
    '{"\\u0000":1}',
    '{"name":"\\x41"}',
    '{"name":"a\nb"}',
    '{"a":1,"a":2,"a":{"__proto__":{"x":1}}}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    'null',
    'true',
    '0',
    '"string"',
    '[]',
    '{}',
    '[null]',
    '\u0000',
    '  \n\t ',
  ),
  fc.json().map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
  fc
    .tuple(
      fc.constantFrom(...NUMBER_TEXTS),
      fc.constantFrom('page', 'page_size', 'max_concurrent_calls', 'name', 'x'),
    )
    .map(([number, key]) => `{"${key}":${number}}`),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
);

/** Sizes around the 16 MiB limit are rare (each costs real time); a few hundred KB are common. */
const bigText = fc
  .oneof(
    { weight: 30, arbitrary: fc.integer({ min: 10_000, max: 300_000 }) },
    { weight: 1, arbitrary: fc.constantFrom(16 * 1024 * 1024 - 64, 16 * 1024 * 1024 + 1) },
  )
  .map((size) => `{"name":"${'x'.repeat(size)}"}`);

const invalidUtf8 = fc
  .tuple(
    fc.constantFrom('{"name":"', '{"', '['),
    fc.uint8Array({ minLength: 1, maxLength: 20 }),
    fc.constantFrom([0xc0, 0xaf], [0xff], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]),
  )
  .map(([prefix, bytes, bad]) =>
    Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from(bad), Buffer.from('"}')]),
  );

function encode(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value) ?? 'null');
}

/** A request body for an operation: mostly its own schema, broken in places. */
export function bodyFor(operation: Operation, fixtures: Fixtures): fc.Arbitrary<Body> {
  const schema = operation.body ?? { type: 'object' };
  const bytes: fc.Arbitrary<Buffer | undefined> = fc.oneof(
    { weight: 8, arbitrary: mutated(schema, fixtures).map(encode) },
    { weight: 2, arbitrary: plausible(schema, fixtures).map(encode) },
    { weight: 2, arbitrary: junkValue.map(encode) },
    { weight: 1, arbitrary: fc.jsonValue().map(encode) },
    { weight: 3, arbitrary: brokenJsonText.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: deepText.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: invalidUtf8 },
    { weight: 1, arbitrary: bigText.map((text) => Buffer.from(text)) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, Buffer.alloc(0)) },
  );
  return fc.record({ bytes, contentType });
}

/** Values for one path parameter: real ids, other ids, and everything that is not an id. */
function pathValue(parameter: string, fixtures: Fixtures): fc.Arbitrary<string> {
  const real = fromPool(fixtures, parameter) ?? fc.uuid();
  const notAnId = fc.oneof(
    oddString,
    fc.uuid().map((id) => id.toUpperCase()),
    fc.uuid().map((id) => `{${id}}`),
    fc.uuid().map((id) => id.replaceAll('-', '')),
    fc.uuid().map((id) => `${id}x`),
    fc.uuid().map((id) => id.slice(0, 35)),
    fc.constantFrom(
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '00000000-0000-0000-0000-00000000000g',
      '12345678-1234-0234-8234-123456789012',
      '12345678-1234-9234-8234-123456789012',
      '12345678-1234-4234-c234-123456789012',
      '0',
      '-1',
      '1e3',
      'null',
      '.',
      '..',
      'status',
      'export',
      'a'.repeat(999),
      'a'.repeat(1001),
    ),
    fc.integer({ min: 37, max: 3000 }).map((n) => 'x'.repeat(n)),
  );
  return fc.oneof(real, notAnId);
}

/** The text as is, but for what Node's client refuses in a URL (controls, spaces, non-ASCII) and `extra`. */
function rawText(value: string, extra: RegExp): string {
  return [...value].map((c) => (c <= ' ' || c >= '\u007f' || extra.test(c) ? uri(c) : c)).join('');
}

/** Encodes a path segment: properly, twice, or not at all (slashes, dots and percents go raw). */
const segmentEncoding = fc.constantFrom<'once' | 'twice' | 'raw'>('once', 'once', 'once', 'twice', 'raw');

function encodeSegment(value: string, how: 'once' | 'twice' | 'raw'): string {
  const once = uri(value);
  if (how === 'once') return once;
  if (how === 'twice') return uri(once);
  // Raw: only what Node's client will put on the wire (no spaces or controls).
  return rawText(value, /[#?]/);
}

export function pathFor(operation: Operation, fixtures: Fixtures, fuzz: boolean): fc.Arbitrary<string> {
  const names = pathParameters(operation.template);
  const valid = (name: string) => fromPool(fixtures, name) ?? fc.uuid();
  return fc
    .tuple(
      ...names.map((name) =>
        fuzz
          ? fc
              .tuple(pathValue(name, fixtures), segmentEncoding)
              .map(([value, how]) => encodeSegment(value, how))
          : valid(name).map((value) => uri(value)),
      ),
    )
    .map((values) =>
      fillPath(operation.template, Object.fromEntries(names.map((name, i) => [name, values[i]!]))),
    );
}

/** Text for a query value that should be a number, a date, an enum member or an id. */
const queryJunk: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '101',
    '1e3',
    '0x10',
    '0b1',
    ' 5',
    '5 ',
    '+5',
    '5.0',
    '2.5',
    '９',
    '٣',
    '99999999999999999999999',
    '1e309',
    'NaN',
    'Infinity',
    '',
    'true',
    '2024-13-01T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01',
    '+275760-09-13T00:00:00Z',
    '-271821-04-20T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '2024-01-01T00:00:00+25:00',
    'yesterday',
    'COMPLETED',
    'completed,failed',
    ...ODD_STRINGS.slice(0, 40),
  ),
  fc.integer().map(String),
  fc.double().map(String),
  oddString,
);

const UNKNOWN_PARAMS = [
  'foo',
  '__proto__',
  '__proto__[admin]',
  'constructor[prototype][admin]',
  'hasOwnProperty',
  'toString',
  'page_size ',
  'PAGE',
  'limit',
  'offset',
  'cursor',
  'sort',
  'order',
  'fields',
  'include',
  'account_id',
  '',
  '%',
  '%ZZ',
  '%00',
  'a[b][c][d][e][f][g]',
];

/** One `name=value` pair, encoded or not. */
const pair = (name: string, value: string, raw: boolean) =>
  raw ? `${name}=${rawText(value, /#/)}` : `${uri(name)}=${uri(value)}`;

interface QueryPart {
  name: string;
  value: string;
  shape: 'plain' | 'repeat' | 'array' | 'indexed' | 'bare' | 'raw';
}

function queryParts(operation: Operation, fixtures: Fixtures): fc.Arbitrary<QueryPart[]> {
  const declared = operation.parameters.filter((p) => p.in === 'query');
  const known = declared.map((p: Parameter) =>
    fc.record({
      name: fc.constant(p.name),
      value: fc.oneof(
        plausible(p.schema, fixtures, p.name).map((v) =>
          typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
        ),
        queryJunk,
      ),
      shape: fc.constantFrom<QueryPart['shape']>(
        'plain',
        'plain',
        'plain',
        'repeat',
        'array',
        'indexed',
        'bare',
        'raw',
      ),
    }),
  );
  const unknown = fc.record({
    name: fc.oneof(fc.constantFrom(...UNKNOWN_PARAMS), fc.string({ maxLength: 10 })),
    value: queryJunk,
    shape: fc.constantFrom<QueryPart['shape']>('plain', 'repeat', 'array', 'raw'),
  });
  const arbitraries = [...known, unknown];
  return fc.array(fc.oneof(...arbitraries), { maxLength: 6 });
}

function renderQuery(parts: QueryPart[]): string {
  return parts
    .flatMap(({ name, value, shape }) => {
      switch (shape) {
        case 'plain':
          return [pair(name, value, false)];
        case 'repeat':
          return [pair(name, value, false), pair(name, '1', false)];
        case 'array':
          return [pair(`${name}[]`, value, false)];
        case 'indexed':
          return [pair(`${name}[0]`, value, false), pair(`${name}[1]`, value, false)];
        case 'bare':
          return [uri(name)];
        default:
          return [pair(name, value, true)];
      }
    })
    .join('&');
}

/** A query string for an operation: its own parameters (good and bad), unknown ones, odd syntax. */
export function queryFor(operation: Operation, fixtures: Fixtures, fuzz: boolean): fc.Arbitrary<string> {
  if (!fuzz) {
    const recording = operation.template === '/v1/recordings/{file}' ? fixtures.recordingQuery : undefined;
    return fc.constant(recording ? new URLSearchParams(recording).toString() : '');
  }
  return fc.oneof(
    { weight: 10, arbitrary: queryParts(operation, fixtures).map(renderQuery) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '&&&',
        '=',
        '==&=',
        '?',
        '#',
        ';page=2',
        'page=1;page_size=2',
        '%',
        '%%%',
        'page=%ZZ',
        'page=%00',
        'page=%C0%AE',
        'page=%FF%FE',
        'page=1+2',
        'a=1&'.repeat(2000),
        `page=${'9'.repeat(5000)}`,
      ),
    },
  );
}

export type AuthChoice = 'full' | 'readOnly' | 'other' | 'revoked' | 'admin' | 'none' | 'junk';

/** Authorization headers: real keys of every kind, and everything that is almost one. */
export function authorizationFor(choice: AuthChoice, fixtures: Fixtures): fc.Arbitrary<[string, string][]> {
  const bearer = (token: string) => [['Authorization', `Bearer ${token}`]] as [string, string][];
  switch (choice) {
    case 'none':
      return fc.constant([]);
    case 'admin':
      return fc.constant(bearer(fixtures.keys.admin));
    case 'junk': {
      const key = fixtures.keys.full;
      return fc
        .oneof(
          fc.constantFrom<string[]>(
            ['Bearer'],
            ['Bearer '],
            [`bearer ${key}`],
            [`BEARER ${key}`],
            [`Bearer  ${key}`],
            [`Bearer ${key} extra`],
            [`Bearer ${key}\t`],
            [`Bearer ${key.slice(0, -1)}`],
            [`Bearer ${key}x`],
            [`Bearer ${key.toUpperCase()}`],
            [key],
            [`Basic ${Buffer.from(`${key}:`).toString('base64')}`],
            [`Token ${key}`],
            [`Bearer ${'a'.repeat(10_000)}`],
            [`Bearer ${fixtures.keys.admin}`],
            [`Bearer ${key}`, `Bearer ${key}`],
            [`Bearer ${key}`, 'Bearer other'],
            [`Bearer ${key}, Bearer other`],
            [''],
            ['Bearer \u00ff\u00fe'],
            ['Bearer null'],
            ['Bearer undefined'],
            [`Bearer ${'%'.repeat(20)}`],
          ),
          fc.string({ maxLength: 40 }).map((s) => [`Bearer ${s}`]),
        )
        .map((values) => values.map((value) => ['Authorization', value] as [string, string]));
    }
    default:
      return fc.constant(bearer(fixtures.keys[choice]));
  }
}

export function authChoice(operation: Operation): fc.Arbitrary<AuthChoice> {
  const owner: AuthChoice = operation.security === 'admin' ? 'admin' : 'full';
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(owner) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<AuthChoice>('readOnly', 'other', 'revoked', 'none', 'admin', 'full'),
    },
    { weight: 2, arbitrary: fc.constant<AuthChoice>('junk') },
  );
}

/** Latin-1 text Node will put in a header value (its client refuses controls and anything wider). */
const headerText = fc
  .oneof(fc.string({ maxLength: 40 }), fc.constantFrom(...ODD_STRINGS))
  .map((s) => s.replace(/[^\u0020-\u007e\u0080-\u00ff]/g, '').slice(0, 8000));

/** Everything else a client may send: request ids, idempotency keys, content negotiation, caching. */
export const otherHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constant('X-Request-Id'),
      fc.oneof(
        fc.constantFrom('ok-id', 'a'.repeat(128), 'a'.repeat(129), '', 'bad id', 'x;y', '../x'),
        headerText,
      ),
    ),
    fc.tuple(
      fc.constant('Idempotency-Key'),
      fc.oneof(
        fc.uuid(),
        fc.constantFrom(
          '',
          'short',
          'k'.repeat(255),
          'k'.repeat(256),
          'has space',
          'caf\u00e9-caf\u00e9',
          '\t\t\t\t\t\t\t\t',
        ),
        headerText,
      ),
    ),
    fc.tuple(
      fc.constant('Accept'),
      fc.oneof(
        fc.constantFrom(
          'application/json',
          'text/html',
          'application/xml',
          '*/*',
          '',
          'text/event-stream',
          'application/json;q=0',
          'image/*',
          '*/*;q=abc',
        ),
        headerText,
      ),
    ),
    fc.tuple(
      fc.constant('Accept-Encoding'),
      fc.constantFrom('gzip', 'br', 'deflate', 'identity;q=0', '*;q=0', 'zstd', 'x'),
    ),
    fc.tuple(fc.constant('Accept-Language'), headerText),
    fc.tuple(
      fc.constant('If-None-Match'),
      fc.oneof(fc.constantFrom('*', 'W/"x"', '"x", "y"', '', ',,,'), headerText),
    ),
    fc.tuple(
      fc.constant('If-Modified-Since'),
      fc.constantFrom('yesterday', 'Thu, 01 Jan 1970 00:00:00 GMT', ''),
    ),
    fc.tuple(
      fc.constant('Range'),
      fc.constantFrom(
        'bytes=0-0',
        'bytes=99999999-',
        'bytes=-1',
        'bytes=5-1',
        'bytes=0-1,2-3,4-5',
        'items=0-1',
        'bytes=x',
      ),
    ),
    fc.tuple(
      fc.constant('Traceparent'),
      fc.oneof(
        fc.constantFrom('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '00-0-0-0', 'ff-'),
        headerText,
      ),
    ),
    fc.tuple(
      fc.constant('X-Forwarded-For'),
      fc.constantFrom('1.2.3.4', 'junk', '::1, 10.0.0.1', '', '999.999.999.999'),
    ),
    fc.tuple(fc.constant('X-Forwarded-Proto'), fc.constantFrom('https', 'gopher', '')),
    fc.tuple(fc.constant('Forwarded'), fc.constantFrom('for=1.2.3.4', 'for="[::1]";proto=https', ';;;')),
    fc.tuple(fc.constant('Origin'), fc.constantFrom('https://evil.example', 'null', '')),
    fc.tuple(fc.constant('Cookie'), fc.constantFrom('a=b', '=;=;', 'session=\u00ff')),
    fc.tuple(fc.constant('Content-Encoding'), fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x')),
    fc.tuple(fc.constant('Expect'), fc.constantFrom('100-continue', 'junk', '')),
    fc.tuple(fc.constant('Connection'), fc.constantFrom('close', 'keep-alive', 'Upgrade', 'x')),
    fc.tuple(fc.constant('Upgrade'), fc.constantFrom('websocket', 'h2c', 'junk')),
    fc.tuple(fc.constant('Sec-WebSocket-Key'), fc.constantFrom('dGhlIHNhbXBsZSBub25jZQ==', 'x')),
    fc.tuple(fc.constant('Access-Control-Request-Method'), fc.constantFrom('POST', 'DELETE')),
    fc.tuple(fc.constant('X-HTTP-Method-Override'), fc.constantFrom('DELETE', 'PUT', 'FROB')),
    fc.tuple(fc.constant('Apollo-Require-Preflight'), fc.constant('true')),
    fc.tuple(fc.constantFrom('X-Junk', 'x-\u00e9', 'Content-Type', 'Content-Language'), headerText),
  ),
  { maxLength: 4 },
);

export const METHODS = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'SEARCH',
  'LINK',
];

export type Focus = 'body' | 'path' | 'query' | 'headers';

/**
 * A request to one documented operation with one part under fuzz (the others plausible), so a
 * problem is found where it is and the rest of the request does not mask it.
 */
export function restRequest(
  operations: Operation[],
  fixtures: Fixtures,
  focus: Focus,
): fc.Arbitrary<HttpRequest> {
  return fc.constantFrom(...operations).chain((operation) => {
    const hasBody = operation.body !== undefined;
    const body: fc.Arbitrary<Body> =
      focus === 'body'
        ? bodyFor(operation, fixtures)
        : hasBody
          ? plausible(operation.body!, fixtures).map((value) => ({
              bytes: encode(value),
              contentType: 'application/json',
            }))
          : fc.constant({ bytes: undefined, contentType: undefined });
    const method =
      focus === 'headers' || focus === 'path'
        ? fc.oneof(
            { weight: 9, arbitrary: fc.constant(operation.method) },
            { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
          )
        : fc.constant(operation.method);
    return fc
      .record({
        method,
        path: pathFor(operation, fixtures, focus === 'path'),
        query: queryFor(operation, fixtures, focus === 'query'),
        auth: (focus === 'headers'
          ? authChoice(operation)
          : fc.constant<AuthChoice>(operation.security === 'admin' ? 'admin' : 'full')
        ).chain((choice) => authorizationFor(choice, fixtures)),
        extra: focus === 'headers' ? otherHeaders : fc.constant([] as [string, string][]),
        body,
        idempotency: fc.option(fc.uuid(), { freq: 3 }),
      })
      .map(({ method, path, query, auth, extra, body, idempotency }): HttpRequest => {
        const headers: [string, string][] = [...auth];
        if (body.contentType !== undefined) headers.push(['Content-Type', body.contentType]);
        if (
          idempotency &&
          operation.parameters.some((p) => p.in === 'header' && p.name === 'idempotency-key')
        ) {
          headers.push(['Idempotency-Key', idempotency]);
        }
        headers.push(...extra);
        return {
          method,
          target: query ? `${path}?${query}` : path,
          headers,
          body: body.bytes,
        };
      });
  });
}
