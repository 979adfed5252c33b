import fc from 'fast-check';
import type { RawRequest } from './transport';
import type { Fixtures } from './values';

/**
 * Requests only a bare socket can send: every way the bytes of a request can be wrong, aimed at
 * real endpoints (documented paths, GraphQL, tRPC) so the broken part is the only problem.
 */

const CRLF = '\r\n';

function targetsOf(paths: string[]): fc.Arbitrary<string> {
  return fc.constantFrom(...paths, '/graphql', '/trpc/agents.list', '/v1/nope', '/');
}

/** Request line and headers, a blank line, then the body, joined as latin1 (bytes as given). */
function message(lines: (string | Buffer)[], body: Buffer | string = ''): Buffer {
  const parts: Buffer[] = [];
  for (const line of lines) {
    parts.push(typeof line === 'string' ? Buffer.from(line, 'latin1') : line, Buffer.from(CRLF));
  }
  parts.push(Buffer.from(CRLF), typeof body === 'string' ? Buffer.from(body) : body);
  return Buffer.concat(parts);
}

const JSON_BODY = '{"name":"fuzz","start_flow":"hi","end_flow":"bye"}';

export function rawRequest(paths: string[], fixtures: Fixtures): fc.Arbitrary<RawRequest> {
  const target = targetsOf(paths);
  const auth = fc.constantFrom(
    `Authorization: Bearer ${fixtures.keys.full}`,
    `Authorization: Bearer ${fixtures.keys.admin}`,
    'Authorization: Bearer nope',
    'X-None: 1',
  );
  const host = 'Host: 127.0.0.1';

  const badRequestLine = fc
    .tuple(
      fc.oneof(
        fc.constantFrom(
          'get',
          'G ET',
          'GET\t',
          'FROB',
          'CONNECT',
          'PRI',
          'GET GET',
          '',
          '\u00c9T',
          'POST\u0000',
        ),
        fc.string({ minLength: 1, maxLength: 12 }),
      ),
      target,
      fc.constantFrom(
        'HTTP/1.1',
        'HTTP/1.0',
        'HTTP/2.0',
        'HTTP/1.2',
        'HTTP/0.9',
        'HTTP/1',
        'http/1.1',
        'HTTPS/1.1',
        '',
        'HTTP/1.1 extra',
      ),
      fc.constantFrom(' ', '  ', '\t'),
    )
    .map(([method, path, version, sep]) => ({
      bytes: message([`${method}${sep}${path}${sep}${version}`.trimEnd(), host]),
      // Node's parser takes `PRI <path>` with no version for the start of an HTTP/2 preface and
      // drops the connection once the next line is not one: nothing above it can answer.
      complete: !(method === 'PRI' && version === ''),
      answers: 1,
    }));

  const oddTarget = fc
    .tuple(
      fc.constantFrom('GET', 'POST', 'OPTIONS', 'DELETE'),
      fc.oneof(
        fc.constantFrom(
          '*',
          'http://127.0.0.1/v1/health',
          'http://evil.example/v1/health',
          '127.0.0.1:80',
          '//v1//health',
          '/v1/health/',
          '/v1/./health',
          '/v1/x/../health',
          '/v1/../admin/accounts',
          '/%2e%2e/%2e%2e/etc/passwd',
          '/v1/agents/..%2f..%2fadmin%2faccounts',
          '/v1/agents/%252e%252e%252f',
          '/docs/static/..%2f..%2f..%2fpackage.json',
          '/docs/static/%2e%2e/%2e%2e/package.json',
          '/docs/..%5c..%5cpackage.json',
          '/docs/static/index.html%00.js',
          '/V1/HEALTH',
          '/v1/health;jsessionid=x',
          '/v1/health#frag',
          '/v1/health?%',
          '/v1/industries/%ZZ/agent-types',
          '/v1/industries/%C0%AE%C0%AE/agent-types',
          '/v1/industries/%FF/agent-types',
          '/v1/industries/%u0041/agent-types',
          '/graphql/',
          '/graphql?query=%7B',
          '/trpc',
          '/trpc/',
          '/trpc/%2e%2e',
          '/trpc/agents.get%00',
          `/trpc/${'a,'.repeat(500)}`,
        ),
        fc
          .tuple(targetsOf(paths), fc.integer({ min: 2_000, max: 120_000 }))
          .map(([path, n]) => `${path}?q=${'a'.repeat(n)}`),
        fc.integer({ min: 2_000, max: 70_000 }).map((n) => `/v1/${'a/'.repeat(n / 2)}`),
        fc
          .tuple(targetsOf(paths), fc.uint8Array({ minLength: 1, maxLength: 8 }))
          .map(([path, bytes]) => `${path}${Buffer.from(bytes).toString('latin1')}`.replace(/[\r\n ]/g, 'x')),
        targetsOf(paths).map((path) => `${path}\u0000`),
        targetsOf(paths).map((path) => `${path}/\u00e9\u00ff`),
      ),
      auth,
    )
    .map(([method, path, authorization]) =>
      message([`${method} ${path} HTTP/1.1`, host, authorization, 'Content-Length: 0']),
    );

  const duplicateHeaders = fc
    .tuple(
      target,
      fc.constantFrom<[string, string][]>(
        [
          ['Content-Length', '2'],
          ['Content-Length', '3'],
        ],
        [
          ['Content-Length', '2'],
          ['Content-Length', '2'],
        ],
        [['Content-Length', '2, 2']],
        [['Content-Length', '2, 3']],
        [
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '2'],
        ],
        [
          ['Transfer-Encoding', 'chunked'],
          ['Transfer-Encoding', 'chunked'],
        ],
        [['Transfer-Encoding', 'gzip, chunked']],
        [['Transfer-Encoding', 'chunked, identity']],
        [['Transfer-Encoding', 'xchunked']],
        [
          ['Host', 'a'],
          ['Host', 'b'],
        ],
        [
          ['Content-Type', 'application/json'],
          ['Content-Type', 'text/plain'],
        ],
        [
          ['Authorization', `Bearer ${fixtures.keys.full}`],
          ['Authorization', `Bearer ${fixtures.keys.full}`],
        ],
        [
          ['X-Request-Id', 'a'],
          ['X-Request-Id', 'b'],
        ],
        [
          ['Idempotency-Key', 'aaaaaaaaaa'],
          ['Idempotency-Key', 'bbbbbbbbbb'],
        ],
      ),
      fc.constantFrom('POST', 'GET', 'PATCH'),
    )
    .map(([path, headers, method]) => {
      const names = headers.map(([name]) => name);
      const body = names.includes('Transfer-Encoding') ? `2${CRLF}{}${CRLF}0${CRLF}${CRLF}` : '{}';
      const lines = [`${method} ${path} HTTP/1.1`];
      if (!names.includes('Host')) lines.push(host);
      if (!names.includes('Authorization')) lines.push(`Authorization: Bearer ${fixtures.keys.full}`);
      if (!names.includes('Content-Type')) lines.push('Content-Type: application/json');
      if (!names.some((name) => name === 'Content-Length' || name === 'Transfer-Encoding')) {
        lines.push('Content-Length: 2');
      }
      for (const [name, value] of headers) lines.push(`${name}: ${value}`);
      return message(lines, body);
    });

  const oversizedHeaders = fc
    .tuple(
      target,
      fc.oneof(
        fc.integer({ min: 15_000, max: 100_000 }).map((n) => [`X-Big: ${'a'.repeat(n)}`]),
        fc
          .integer({ min: 100, max: 2_000 })
          .map((n) => Array.from({ length: n }, (_, i) => `X-H${i}: ${'v'.repeat(20)}`)),
        fc.integer({ min: 1_000, max: 20_000 }).map((n) => [`${'X'.repeat(n)}: 1`]),
        fc.integer({ min: 8_000, max: 20_000 }).map((n) => [`Authorization: Bearer ${'k'.repeat(n)}`]),
      ),
    )
    .map(([path, lines]) => message([`GET ${path} HTTP/1.1`, host, ...lines]));

  const INCOMPLETE_CHUNKED = new Set([
    `2${CRLF}{}`,
    `2${CRLF}{}${CRLF}`,
    `10${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
  ]);
  const chunked = fc
    .tuple(
      target,
      fc.constantFrom(
        `zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
        `ffffffffffffffffffff${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
        `-2${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
        `2${CRLF}{}`,
        `2${CRLF}{}${CRLF}`,
        `10${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
        `2;ext=${'x'.repeat(5000)}${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
        `2${CRLF}{}XX0${CRLF}${CRLF}`,
        `2\n{}\n0\n\n`,
        `1${CRLF}{${CRLF}1${CRLF}}${CRLF}0${CRLF}Trailer: x${CRLF}${CRLF}`,
        `0${CRLF}${CRLF}`,
        `${CRLF}`,
        `2 ${CRLF}{}${CRLF}0${CRLF}${CRLF}`,
      ),
      fc.constantFrom('POST', 'PATCH', 'PUT'),
    )
    .map(([path, body, method]) => ({
      bytes: message(
        [
          `${method} ${path} HTTP/1.1`,
          host,
          `Authorization: Bearer ${fixtures.keys.full}`,
          'Content-Type: application/json',
          'Transfer-Encoding: chunked',
        ],
        body,
      ),
      complete: !INCOMPLETE_CHUNKED.has(body),
      answers: 1,
    }));

  const wrongLength = fc
    .tuple(
      target,
      fc.constantFrom(
        '0',
        '1',
        '5',
        '49',
        '51',
        '500',
        '-1',
        '1e3',
        ' 10 ',
        '0x10',
        '+10',
        '99999999999999999999',
        '',
        'abc',
        '10 20',
      ),
      fc.constantFrom('POST', 'PATCH', 'PUT', 'GET'),
    )
    .map(([path, length, method]) => ({
      bytes: message(
        [
          `${method} ${path} HTTP/1.1`,
          host,
          `Authorization: Bearer ${fixtures.keys.full}`,
          'Content-Type: application/json',
          `Content-Length: ${length}`,
        ],
        JSON_BODY,
      ),
      // A length past the body's end leaves the server waiting for the rest.
      complete: !(/^\d+$/.test(length) && Number(length) > JSON_BODY.length),
      answers: 1,
    }));

  const badBytes = fc
    .tuple(
      target,
      fc.constantFrom(
        Buffer.from([0xc0, 0xaf]),
        Buffer.from([0xff, 0xfe]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from([0x00]),
        Buffer.from([0x7f]),
        Buffer.from([0x1b, 0x5b, 0x33, 0x31, 0x6d]),
      ),
      fc.constantFrom('header-value', 'header-name', 'body', 'url'),
    )
    .map(([path, bytes, where]) => {
      const latin = bytes.toString('latin1');
      const body =
        where === 'body'
          ? Buffer.concat([Buffer.from('{"name":"'), bytes, Buffer.from('"}')])
          : Buffer.from('{}');
      return message(
        [
          `POST ${where === 'url' ? `${path}${latin}` : path} HTTP/1.1`,
          host,
          `Authorization: Bearer ${fixtures.keys.full}`,
          'Content-Type: application/json',
          where === 'header-value' ? `X-Request-Id: a${latin}b` : 'X-Ok: 1',
          where === 'header-name' ? `X-${latin}: 1` : 'X-Ok2: 1',
          `Content-Length: ${body.length}`,
        ],
        body,
      );
    });

  const malformedLines = fc
    .tuple(
      target,
      fc.constantFrom<string[]>(
        ['Host : x'],
        ['NoColon'],
        [': novalue'],
        ['X-Folded: a', ' continued'],
        ['X-Folded: a', '\tcontinued'],
        ['X Space: 1'],
        ['X-Tab\t: 1'],
        ['Content-Length:', 'X: 1'],
        ['Expect: 100-continue', 'Content-Length: 2'],
        ['Expect: 200-ok'],
        ['Expect: junk', 'Content-Length: 2'],
        [
          'Connection: Upgrade',
          'Upgrade: websocket',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        ],
        ['Connection: Upgrade', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA'],
        ['Upgrade: websocket'],
      ),
      fc.boolean(),
    )
    .map(([path, lines, withHost]) =>
      message(
        [`GET ${path} HTTP/1.1`, ...(withHost ? [host] : []), ...lines],
        lines.some((l) => l.startsWith('Content-Length: 2')) ? '{}' : '',
      ),
    );

  const lineEndings = fc
    .tuple(target, fc.constantFrom('\n', '\r', '\r\r\n', '\n\r'))
    .map(([path, eol]) => Buffer.from(`GET ${path} HTTP/1.1${eol}Host: x${eol}${eol}`, 'latin1'));

  const noHost = fc
    .tuple(target, fc.constantFrom('HTTP/1.1', 'HTTP/1.0'))
    .map(([path, version]) => Buffer.from(`GET ${path} ${version}${CRLF}${CRLF}`, 'latin1'));

  const pipelined = fc
    .tuple(target, target, fc.uint8Array({ maxLength: 40 }))
    .map(([first, second, junk]) => ({
      bytes: Buffer.concat([
        message([`GET ${first} HTTP/1.1`, host]),
        message([`GET ${second} HTTP/1.1`, host, `Authorization: Bearer ${fixtures.keys.full}`]),
        Buffer.from(junk),
      ]),
      complete: true,
      answers: 2,
      targets: [first, second],
    }));

  // Random bytes may stop inside what still parses as a request; the rest is whole or plainly broken.
  const garbage = fc.oneof(
    fc
      .uint8Array({ minLength: 1, maxLength: 300 })
      .map((bytes) => ({ bytes: Buffer.from(bytes), complete: false, answers: 1 })),
    fc.constantFrom(
      { bytes: Buffer.from(`PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`), complete: true, answers: 1 },
      {
        bytes: Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]),
        complete: true,
        answers: 1,
      },
      { bytes: Buffer.alloc(1000, 0), complete: true, answers: 1 },
      { bytes: Buffer.from(CRLF.repeat(10)), complete: false, answers: 1 },
      { bytes: Buffer.from('GET'), complete: false, answers: 1 },
      { bytes: Buffer.from(`GET / HTTP/1.1${CRLF}Host: x`), complete: false, answers: 1 },
      { bytes: Buffer.from(`GET / HTTP/1.1${CRLF}Host: x${CRLF}`), complete: false, answers: 1 },
    ),
  );
  const whole = (arbitrary: fc.Arbitrary<Buffer>): fc.Arbitrary<RawRequest> =>
    arbitrary.map((bytes) => ({ bytes, complete: true, answers: 1 }));

  return fc.oneof(
    badRequestLine,
    { weight: 2, arbitrary: whole(oddTarget) },
    whole(duplicateHeaders),
    whole(oversizedHeaders),
    chunked,
    wrongLength,
    whole(badBytes),
    whole(malformedLines),
    whole(lineEndings),
    whole(noHost),
    pipelined,
    garbage,
  );
}
