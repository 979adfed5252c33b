import type { LookupAddress } from 'node:dns';
import { get as httpGet } from 'node:http';
import { connect, createServer, type LookupFunction, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS_NOT_ALLOWED,
  type AddressClass,
  AddressNotAllowedError,
  checkWebhookUrl,
  classifyAddress,
  createGuardedLookup,
  isAllowedAddress,
} from '../src/net/index';

const CLASSES: Record<AddressClass, string[]> = {
  public: [
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.255',
    '192.0.3.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81b::200e',
    '2001:4860:4860::8888',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db9::',
    '2001:200::',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2002:0808:0808:0000:0000:0000:0000:0001',
    '3fff:1000::',
  ],
  loopback: [
    '127.0.0.0',
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.255',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:7F00:1',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
  ],
  private: [
    '10.0.0.0',
    '10.0.0.5',
    '10.255.255.255',
    '172.16.0.0',
    '172.31.255.255',
    '192.168.0.0',
    '192.168.1.1',
    '192.168.255.255',
    'fc00::',
    'fd12:3456:789a::1',
    'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fec0::1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    '::10.0.0.1',
    '64:ff9b::192.168.0.1',
    '2002:c0a8:101::1',
  ],
  link_local: [
    '169.254.0.0',
    '169.254.0.1',
    '169.254.169.253',
    '169.254.255.255',
    'fe80::',
    'fe80::1',
    'fe80::1%eth0',
    'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '::ffff:169.254.1.1',
  ],
  cgnat: ['100.64.0.0', '100.64.0.1', '100.127.255.255', '::ffff:100.64.0.1', '64:ff9b::100.100.0.1'],
  metadata: [
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::',
  ],
  unspecified: [
    '0.0.0.0',
    '0.1.2.3',
    '0.255.255.255',
    '::',
    '0:0:0:0:0:0:0:0',
    '::ffff:0.0.0.0',
    '::0.0.0.2',
  ],
  multicast: [
    '224.0.0.0',
    '224.0.0.1',
    '239.255.255.255',
    '255.255.255.255',
    'ff00::',
    'ff02::1',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '::ffff:224.0.0.1',
  ],
  reserved: [
    '240.0.0.0',
    '250.1.2.3',
    '255.255.255.254',
    '192.0.0.0',
    '192.0.0.255',
    '192.88.99.1',
    '2001::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:0:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:10::1',
    '64:ff9b:1::1',
    '100::1',
    '::ffff:0:7f00:1',
    '1::',
    '4000::1',
    '5f00::1',
  ],
  benchmarking: [
    '198.18.0.0',
    '198.18.0.1',
    '198.19.255.255',
    '2001:2::',
    '2001:2:0:ffff::1',
    '::ffff:198.18.0.1',
  ],
  documentation: [
    '192.0.2.0',
    '192.0.2.255',
    '198.51.100.0',
    '198.51.100.255',
    '203.0.113.0',
    '203.0.113.255',
    '2001:db8::',
    '2001:db8::1',
    '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    '3fff::',
    '3fff:fff::1',
  ],
  invalid: [
    '',
    '1.2.3',
    '01.2.3.4',
    '1.2.3.04',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1.2.3.4.5',
    '256.1.1.1',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '2130706433',
    '127.1',
    '::ffff:999.1.1.1',
    '::ffff:1.2.3',
    '1::2::3',
    '[::1]',
    '::1\n',
    ':::1',
    '12345::1',
    'g::1',
    'localhost',
    'example.com',
  ],
};

const TABLE = Object.entries(CLASSES).flatMap(([addressClass, ips]) =>
  ips.map((ip) => ({ ip, addressClass: addressClass as AddressClass })),
);

describe('classifyAddress', () => {
  it.each(TABLE)('$ip is $addressClass', ({ ip, addressClass }) => {
    expect(classifyAddress(ip)).toBe(addressClass);
  });

  it('never throws on non-string input reaching it at run time', () => {
    expect(classifyAddress(undefined as unknown as string)).toBe('invalid');
    expect(classifyAddress(2130706433 as unknown as string)).toBe('invalid');
  });
});

describe('isAllowedAddress', () => {
  const ALLOWED_WHEN_PRIVATE: Record<AddressClass, boolean> = {
    public: true,
    loopback: true,
    private: true,
    link_local: true,
    cgnat: true,
    metadata: true,
    reserved: true,
    benchmarking: true,
    documentation: true,
    unspecified: false,
    multicast: false,
    invalid: false,
  };

  it.each(TABLE)('$ip ($addressClass) by policy', ({ ip, addressClass }) => {
    expect(isAllowedAddress(ip, { allowPrivate: false })).toBe(addressClass === 'public');
    expect(isAllowedAddress(ip, { allowPrivate: true })).toBe(ALLOWED_WHEN_PRIVATE[addressClass]);
  });
});

describe('WHATWG URL canonicalises odd IPv4 spellings (the URL check relies on it)', () => {
  it.each([
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f.0x0.0.1/', '127.0.0.1'],
    ['http://[::ffff:10.0.0.1]/', '[::ffff:a00:1]'],
  ])('%s has hostname %s', (raw, hostname) => {
    expect(new URL(raw).hostname).toBe(hostname);
  });
});

/** A resolver that must not be reached: names in these cases are decided without DNS. */
const noDns = async (host: string): Promise<string[]> => {
  throw new Error(`unexpected DNS lookup for ${host}`);
};

function fixedDns(answers: Record<string, string[]>) {
  return async (host: string): Promise<string[]> => {
    const addresses = answers[host];
    if (addresses) return addresses;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
}

describe('checkWebhookUrl', () => {
  it.each([
    ['ftp://example.com/hook', 'must use http or https, not ftp'],
    ['file:///etc/passwd', 'must use http or https, not file'],
    ['javascript:alert(1)', 'must use http or https, not javascript'],
    ['data:text/plain,hi', 'must use http or https, not data'],
    ['ws://example.com/', 'must use http or https, not ws'],
    ['https://user:secret@example.com/hook', 'must not contain a user name or password'],
    ['https://user@example.com/hook', 'must not contain a user name or password'],
    ['https://:secret@example.com/hook', 'must not contain a user name or password'],
    ['/relative/hook', 'is not a valid absolute URL'],
    ['not a url', 'must not contain whitespace or control characters'],
    ['https://exa\tmple.com/', 'must not contain whitespace or control characters'],
    [' https://example.com/', 'must not contain whitespace or control characters'],
    ['', 'must not be empty'],
    ['http://', 'is not a valid absolute URL'],
    ['http://1.2.3.256/', 'is not a valid absolute URL'],
    [`https://example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters long'],
  ])('refuses %j whatever the setting', async (raw, reason) => {
    for (const allowPrivate of [false, true]) {
      await expect(checkWebhookUrl(raw, { allowPrivate, resolve: noDns })).resolves.toEqual({
        ok: false,
        reason,
      });
    }
  });

  it('never throws on non-string input reaching it at run time', async () => {
    await expect(checkWebhookUrl(null as unknown as string, { allowPrivate: false })).resolves.toEqual({
      ok: false,
      reason: 'must be a string',
    });
  });

  it('accepts exactly 2048 characters', async () => {
    const raw = `https://8.8.8.8/${'a'.repeat(2048 - 'https://8.8.8.8/'.length)}`;
    expect(raw).toHaveLength(2048);
    await expect(checkWebhookUrl(raw, { allowPrivate: false, resolve: noDns })).resolves.toEqual({
      ok: true,
      url: raw,
    });
  });

  it.each([
    ['http://127.0.0.1', 'names a loopback address (127.0.0.1)'],
    ['http://127.0.0.1:3000/hook', 'names a loopback address (127.0.0.1)'],
    ['http://[::1]', 'names a loopback address (::1)'],
    ['http://0x7f.1/', 'names a loopback address (127.0.0.1)'],
    ['http://2130706433/', 'names a loopback address (127.0.0.1)'],
    ['http://169.254.169.254/latest/meta-data', 'names a cloud metadata address (169.254.169.254)'],
    ['http://[fd00:ec2::254]/latest/meta-data', 'names a cloud metadata address (fd00:ec2::254)'],
    ['http://[::ffff:10.0.0.1]/', 'names a private address (::ffff:a00:1)'],
    ['https://10.0.0.5/hook', 'names a private address (10.0.0.5)'],
    ['https://100.64.0.1/hook', 'names a carrier-grade NAT (shared) address (100.64.0.1)'],
    ['https://198.18.0.1/hook', 'names a benchmarking address (198.18.0.1)'],
    ['http://localhost:8080', 'names the local host (localhost)'],
    ['http://LOCALHOST./', 'names the local host (localhost)'],
    ['http://foo.localhost', 'names the local host (foo.localhost)'],
    [
      'http://metadata.google.internal/computeMetadata/v1/',
      'names a cloud metadata service (metadata.google.internal)',
    ],
  ])('refuses %s without allowPrivate and allows it with it', async (raw, reason) => {
    await expect(checkWebhookUrl(raw, { allowPrivate: false, resolve: noDns })).resolves.toEqual({
      ok: false,
      reason,
    });
    await expect(checkWebhookUrl(raw, { allowPrivate: true, resolve: noDns })).resolves.toEqual({
      ok: true,
      url: raw,
    });
  });

  it.each([
    ['http://0.0.0.0:8080/', 'names an unspecified address (0.0.0.0)'],
    ['http://[::]/', 'names an unspecified address (::)'],
    ['http://224.0.0.1/', 'names a multicast or broadcast address (224.0.0.1)'],
    ['http://255.255.255.255/', 'names a multicast or broadcast address (255.255.255.255)'],
    ['http://[ff02::1]/', 'names a multicast or broadcast address (ff02::1)'],
  ])('refuses %s even with allowPrivate', async (raw, reason) => {
    for (const allowPrivate of [false, true]) {
      await expect(checkWebhookUrl(raw, { allowPrivate, resolve: noDns })).resolves.toEqual({
        ok: false,
        reason,
      });
    }
  });

  it('allows public IP literals without DNS', async () => {
    for (const raw of ['https://8.8.8.8/hook', 'http://[2606:4700:4700::1111]:8443/x?y=1']) {
      await expect(checkWebhookUrl(raw, { allowPrivate: false, resolve: noDns })).resolves.toEqual({
        ok: true,
        url: raw,
      });
    }
  });

  it('allows a name that resolves only to public addresses', async () => {
    const resolve = fixedDns({
      'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    await expect(
      checkWebhookUrl('https://hooks.example.com/voice', { allowPrivate: false, resolve }),
    ).resolves.toEqual({ ok: true, url: 'https://hooks.example.com/voice' });
  });

  it.each([
    [['93.184.216.34', '10.0.0.5'], 'resolves to a private address (10.0.0.5)'],
    [['10.0.0.5', '93.184.216.34'], 'resolves to a private address (10.0.0.5)'],
    [['93.184.216.34', '::1'], 'resolves to a loopback address (::1)'],
    [['93.184.216.34', '169.254.169.254'], 'resolves to a cloud metadata address (169.254.169.254)'],
    [['93.184.216.34', '::ffff:192.168.1.1'], 'resolves to a private address (::ffff:192.168.1.1)'],
    [['100.64.0.9'], 'resolves to a carrier-grade NAT (shared) address (100.64.0.9)'],
    [['93.184.216.34', 'not-an-ip'], 'resolves to an invalid address (not-an-ip)'],
  ])('refuses a name resolving to %j', async (addresses, reason) => {
    const resolve = fixedDns({ 'rebind.example.com': addresses });
    await expect(
      checkWebhookUrl('https://rebind.example.com/', { allowPrivate: false, resolve }),
    ).resolves.toEqual({
      ok: false,
      reason,
    });
  });

  it('does not resolve names at all when allowPrivate is on', async () => {
    await expect(
      checkWebhookUrl('https://rebind.example.com/', { allowPrivate: true, resolve: noDns }),
    ).resolves.toEqual({ ok: true, url: 'https://rebind.example.com/' });
  });

  it('refuses a name that does not resolve, saying so', async () => {
    await expect(
      checkWebhookUrl('https://nowhere.example.com/', { allowPrivate: false, resolve: fixedDns({}) }),
    ).resolves.toEqual({ ok: false, reason: 'host nowhere.example.com could not be resolved (ENOTFOUND)' });
    await expect(
      checkWebhookUrl('https://empty.example.com/', {
        allowPrivate: false,
        resolve: fixedDns({ 'empty.example.com': [] }),
      }),
    ).resolves.toEqual({ ok: false, reason: 'host empty.example.com does not resolve to any address' });
  });

  it('refuses a name whose resolution outlasts the timeout', async () => {
    // Resolves only after the check gave up (released below), however slow the machine.
    let resolveLate: () => void = () => {};
    const late = new Promise<void>((resolve) => {
      resolveLate = resolve;
    });
    const slow = (): Promise<string[]> => late.then(() => ['93.184.216.34']);
    const started = Date.now();
    await expect(
      checkWebhookUrl('https://slow.example.com/', {
        allowPrivate: false,
        resolve: slow,
        resolveTimeoutMs: 50,
      }),
    ).resolves.toEqual({ ok: false, reason: 'host slow.example.com did not resolve within 50 ms' });
    resolveLate();
    // The 50 ms asked for, not the resolution's own time: a loaded machine may add seconds.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('createGuardedLookup', () => {
  let server: Server;
  let port: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // Hang up at once, and remember the sockets so closing the server never waits on a client.
    server = createServer((socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.end();
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('server has no port');
    port = address.port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((closed) => server.close(() => closed()));
  });

  /** Connects to `localhost` (so the lookup runs) and reports the error or the peer address. */
  function connectThrough(
    lookup: LookupFunction,
    extra: { family?: number; autoSelectFamily?: boolean } = {},
  ): Promise<{ error?: NodeJS.ErrnoException; remote?: string }> {
    return new Promise((settle) => {
      const socket = connect({ host: 'localhost', port, lookup, ...extra });
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        socket.destroy();
        settle({ remote });
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        socket.destroy();
        settle({ error });
      });
    });
  }

  it('fails a real connection to localhost without allowPrivate', async () => {
    const { error, remote } = await connectThrough(createGuardedLookup({ allowPrivate: false }));
    expect(remote).toBeUndefined();
    expect(error).toBeInstanceOf(AddressNotAllowedError);
    expect(error?.code).toBe(ADDRESS_NOT_ALLOWED);
    expect(error?.message).toMatch(/^localhost resolves to a loopback address \((127\.0\.0\.1|::1)\)/);
  });

  it('fails the single-address form too (no happy eyeballs)', async () => {
    const { error } = await connectThrough(createGuardedLookup({ allowPrivate: false }), {
      family: 4,
      autoSelectFamily: false,
    });
    expect(error?.code).toBe(ADDRESS_NOT_ALLOWED);
  });

  it('connects to localhost with allowPrivate', async () => {
    const lookup = createGuardedLookup({ allowPrivate: true });
    await expect(connectThrough(lookup)).resolves.toEqual({ remote: '127.0.0.1' });
    await expect(connectThrough(lookup, { family: 4, autoSelectFamily: false })).resolves.toEqual({
      remote: '127.0.0.1',
    });
  });

  it('guards node:http requests too (its `lookup` option is the same hook)', async () => {
    const request = (allowPrivate: boolean) =>
      new Promise<NodeJS.ErrnoException | undefined>((settle) => {
        const req = httpGet(
          { host: 'localhost', port, lookup: createGuardedLookup({ allowPrivate }) },
          (res) => {
            res.resume();
            settle(undefined);
          },
        );
        // The TCP server above hangs up without an HTTP answer, so a reached server shows as a
        // socket hang-up: the connection got through the lookup.
        req.once('error', (error: NodeJS.ErrnoException) => settle(error));
      });
    await expect(request(false)).resolves.toMatchObject({ code: ADDRESS_NOT_ALLOWED });
    await expect(request(true)).resolves.toMatchObject({ code: 'ECONNRESET' });
  });

  function callLookup(
    lookup: LookupFunction,
    all: boolean,
  ): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
    return new Promise((settle) => {
      lookup('hooks.example.com', { all }, (error, address, family) => settle({ error, address, family }));
    });
  }

  const injected = (addresses: LookupAddress[]) => async () => addresses;

  it('answers in the form asked for when every address is allowed', async () => {
    const addresses = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    const lookup = createGuardedLookup({ allowPrivate: false, resolve: injected(addresses) });
    await expect(callLookup(lookup, true)).resolves.toEqual({
      error: null,
      address: addresses,
      family: undefined,
    });
    await expect(callLookup(lookup, false)).resolves.toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('refuses when any address is not allowed, in either form', async () => {
    const lookup = createGuardedLookup({
      allowPrivate: false,
      resolve: injected([
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ]),
    });
    for (const all of [true, false]) {
      const { error } = await callLookup(lookup, all);
      expect(error).toBeInstanceOf(AddressNotAllowedError);
      expect(error).toMatchObject({
        code: ADDRESS_NOT_ALLOWED,
        hostname: 'hooks.example.com',
        address: '::ffff:169.254.169.254',
        addressClass: 'metadata',
      });
    }
  });

  it('still refuses unspecified and multicast addresses with allowPrivate', async () => {
    const lookup = createGuardedLookup({
      allowPrivate: true,
      resolve: injected([{ address: '0.0.0.0', family: 4 }]),
    });
    await expect(callLookup(lookup, false)).resolves.toMatchObject({
      error: { addressClass: 'unspecified' },
    });
  });

  it('passes resolver errors through and treats an empty answer as ENOTFOUND', async () => {
    const failing = createGuardedLookup({
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo EAI_AGAIN hooks.example.com'), { code: 'EAI_AGAIN' });
      },
    });
    await expect(callLookup(failing, true)).resolves.toMatchObject({ error: { code: 'EAI_AGAIN' } });
    const empty = createGuardedLookup({ allowPrivate: false, resolve: injected([]) });
    await expect(callLookup(empty, false)).resolves.toMatchObject({ error: { code: 'ENOTFOUND' } });
  });

  it('asks the resolver for every address of the requested family', async () => {
    const seen: unknown[] = [];
    const lookup = createGuardedLookup({
      allowPrivate: false,
      resolve: async (_hostname, options) => {
        seen.push(options);
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    await new Promise<void>((done) =>
      lookup('hooks.example.com', { family: 'IPv4', hints: 0 }, () => done()),
    );
    expect(seen).toEqual([{ family: 4, hints: 0, all: true }]);
  });
});
