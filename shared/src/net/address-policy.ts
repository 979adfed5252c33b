import { isIP } from 'node:net';

/**
 * What kind of destination an IP address is, for deciding whether the platform may connect to it
 * on a customer's behalf (webhooks). Only `public` is a destination on the open internet; every
 * other class is somewhere a server-side request must not reach unless the operator says so.
 *
 * `multicast` also covers the IPv4 limited broadcast 255.255.255.255: both are one-to-many
 * destinations, never a single receiver, so they share the class that stays refused even when
 * private addresses are allowed.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'invalid';

export interface AddressPolicyOptions {
  /** The operator setting WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
}

type Bytes = readonly number[];
interface Rule {
  network: Bytes;
  bits: number;
  class: AddressClass;
}
/** An IPv6 prefix whose addresses carry an IPv4 address that decides where the packet really goes. */
interface EmbeddingRule {
  network: Bytes;
  bits: number;
  /** Byte offset of the embedded IPv4 address. */
  at: number;
}

/**
 * Strict dotted-quad IPv4: four decimal octets, no leading zeros, nothing else. Odd spellings
 * (octal, hex, fewer parts, a single integer) are not accepted here: WHATWG URL canonicalises
 * them in hostnames before we see them, and anything else that is not canonical is `invalid`
 * rather than guessed at, because a guess that differs from the connecting code is an SSRF hole.
 */
function parseIPv4(text: string): Bytes | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes.push(value);
  }
  return bytes;
}

/** Any RFC 4291 text form (compressed or not, either case, with a dotted IPv4 tail) as 16 bytes. */
function parseIPv6(text: string): Bytes | null {
  let head = text;
  let tail: Bytes = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return null;
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const ipv4 = parseIPv4(last);
    if (!ipv4) return null;
    tail = ipv4;
    // Keep the colon so "::1.2.3.4" leaves "::" and "1:2:3:4:5:6:1.2.3.4" leaves "1:...:6:".
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groupsWanted = (16 - tail.length) / 2;
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const toGroups = (part: string | undefined): string[] | null => {
    if (part === undefined || part === '') return [];
    const groups = part.split(':');
    return groups.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group)) ? groups : null;
  };
  const left = toGroups(halves[0]);
  const right = toGroups(halves[1]);
  if (!left || !right) return null;
  let groups: string[];
  if (halves.length === 2) {
    const missing = groupsWanted - left.length - right.length;
    if (missing < 1) return null;
    groups = [...left, ...Array<string>(missing).fill('0'), ...right];
  } else {
    groups = left;
  }
  if (groups.length !== groupsWanted) return null;
  const bytes: number[] = [];
  for (const group of groups) {
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return [...bytes, ...tail];
}

function parseNetwork(text: string): Bytes {
  const bytes = text.includes(':') ? parseIPv6(text) : parseIPv4(text);
  if (!bytes) throw new Error(`bad network literal in the address policy table: ${text}`);
  return bytes;
}

function rule(network: string, bits: number, addressClass: AddressClass): Rule {
  return { network: parseNetwork(network), bits, class: addressClass };
}

function inPrefix(address: Bytes, network: Bytes, bits: number): boolean {
  if (address.length !== network.length) return false;
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((address[i / 8] ?? 0) & mask) !== ((network[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * IPv4 special-purpose ranges (IANA registry, RFC 6890 and successors). First match wins, so a
 * single metadata address is listed before the range that contains it.
 */
const IPV4_RULES: readonly Rule[] = [
  rule('0.0.0.0', 8, 'unspecified'), // "this network"; Linux connects 0.0.0.0 to the local host
  rule('10.0.0.0', 8, 'private'),
  rule('100.100.100.200', 32, 'metadata'), // Alibaba Cloud instance metadata (inside CGNAT space)
  rule('100.64.0.0', 10, 'cgnat'),
  rule('127.0.0.0', 8, 'loopback'),
  rule('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure, OCI, OpenStack instance metadata
  rule('169.254.170.2', 32, 'metadata'), // AWS ECS task metadata and credentials
  rule('169.254.0.0', 16, 'link_local'),
  rule('172.16.0.0', 12, 'private'),
  // IETF protocol assignments. A few (PCP/TURN anycast) are globally reachable, but none is a
  // webhook receiver, so the whole /24 is refused rather than carved up.
  rule('192.0.0.0', 24, 'reserved'),
  rule('192.0.2.0', 24, 'documentation'), // TEST-NET-1
  rule('192.88.99.0', 24, 'reserved'), // deprecated 6to4 relay anycast (RFC 7526)
  rule('192.168.0.0', 16, 'private'),
  rule('198.18.0.0', 15, 'benchmarking'),
  rule('198.51.100.0', 24, 'documentation'), // TEST-NET-2
  rule('203.0.113.0', 24, 'documentation'), // TEST-NET-3
  rule('224.0.0.0', 4, 'multicast'),
  rule('255.255.255.255', 32, 'multicast'), // limited broadcast; see AddressClass
  rule('240.0.0.0', 4, 'reserved'),
];

/**
 * IPv6 prefixes whose traffic ends up at an IPv4 address: classify that address, or a NAT64
 * gateway or 6to4 relay would carry a request to 127.0.0.1 or 10.x on our behalf.
 */
const IPV6_EMBEDDINGS: readonly EmbeddingRule[] = [
  { network: parseNetwork('::ffff:0:0'), bits: 96, at: 12 }, // IPv4-mapped
  { network: parseNetwork('::'), bits: 96, at: 12 }, // IPv4-compatible (deprecated, still routable by some stacks)
  { network: parseNetwork('64:ff9b::'), bits: 96, at: 12 }, // NAT64 well-known prefix (RFC 6052)
  { network: parseNetwork('2002::'), bits: 16, at: 2 }, // 6to4 (RFC 3056)
];

/** `::` and `::1` mean themselves although they sit inside the IPv4-compatible range: checked first. */
const IPV6_SELF_RULES: readonly Rule[] = [rule('::', 128, 'unspecified'), rule('::1', 128, 'loopback')];

const IPV6_RULES: readonly Rule[] = [
  // Local-use NAT64 (RFC 8215): the operator picks where the IPv4 sits, so it cannot be extracted.
  rule('64:ff9b:1::', 48, 'reserved'),
  rule('fd00:ec2::254', 128, 'metadata'), // AWS instance metadata over IPv6 (inside fc00::/7)
  rule('fc00::', 7, 'private'), // unique local addresses
  rule('fe80::', 10, 'link_local'),
  rule('fec0::', 10, 'private'), // deprecated site-local: private in practice where still used
  rule('ff00::', 8, 'multicast'),
  rule('2001:db8::', 32, 'documentation'),
  rule('3fff::', 20, 'documentation'), // RFC 9637
  rule('2001:2::', 48, 'benchmarking'),
  rule('2001::', 32, 'reserved'), // Teredo: the real destination is hidden in an obfuscated IPv4
  // The rest of the IETF protocol assignment block (ORCHID, AMT, AS112 ...): not webhook receivers.
  rule('2001::', 23, 'reserved'),
];

/** Only 2000::/3 is allocated for global unicast; anything else left over is not a public host. */
const IPV6_GLOBAL_UNICAST = rule('2000::', 3, 'public');

function classifyIPv4Bytes(bytes: Bytes): AddressClass {
  for (const candidate of IPV4_RULES) {
    if (inPrefix(bytes, candidate.network, candidate.bits)) return candidate.class;
  }
  return 'public';
}

function classifyIPv6Bytes(bytes: Bytes): AddressClass {
  for (const candidate of IPV6_SELF_RULES) {
    if (inPrefix(bytes, candidate.network, candidate.bits)) return candidate.class;
  }
  for (const embedding of IPV6_EMBEDDINGS) {
    if (inPrefix(bytes, embedding.network, embedding.bits)) {
      return classifyIPv4Bytes(bytes.slice(embedding.at, embedding.at + 4));
    }
  }
  for (const candidate of IPV6_RULES) {
    if (inPrefix(bytes, candidate.network, candidate.bits)) return candidate.class;
  }
  return inPrefix(bytes, IPV6_GLOBAL_UNICAST.network, IPV6_GLOBAL_UNICAST.bits) ? 'public' : 'reserved';
}

/**
 * The class of one IP address in text form. Accepted input is what `net.isIP` accepts (strict
 * dotted-decimal IPv4; any RFC 4291 IPv6 form, either case). A zone suffix (`fe80::1%eth0`, as the
 * OS resolver may return) is ignored for classification: zones only exist on link-local and
 * multicast addresses, which are classified by their address part. Anything else, including
 * surrounding whitespace, brackets, or URL-style odd IPv4 spellings, is `invalid`; never throws.
 */
export function classifyAddress(ip: string): AddressClass {
  if (typeof ip !== 'string') return 'invalid';
  const family = isIP(ip);
  if (family === 4) {
    const bytes = parseIPv4(ip);
    return bytes ? classifyIPv4Bytes(bytes) : 'invalid';
  }
  if (family === 6) {
    const percent = ip.indexOf('%');
    const bytes = parseIPv6(percent < 0 ? ip : ip.slice(0, percent));
    return bytes ? classifyIPv6Bytes(bytes) : 'invalid';
  }
  return 'invalid';
}

/**
 * Classes refused even when the operator allows private addresses: `invalid` is not an address,
 * `unspecified` (0.0.0.0, ::) silently means "this host" on Linux, and `multicast`/broadcast is
 * never a single receiver. Everything else (loopback, private, link-local, CGNAT, metadata,
 * reserved, benchmarking, documentation) is allowed under WEBHOOK_ALLOW_PRIVATE, which exists for
 * tests, the embedded default and operators whose receivers live on internal networks.
 */
const NEVER_ALLOWED: ReadonlySet<AddressClass> = new Set<AddressClass>([
  'invalid',
  'unspecified',
  'multicast',
]);

/** Whether the platform may connect to `ip` on a customer's behalf. */
export function isAllowedAddress(ip: string, options: AddressPolicyOptions): boolean {
  return isAllowedClass(classifyAddress(ip), options);
}

export function isAllowedClass(addressClass: AddressClass, options: AddressPolicyOptions): boolean {
  if (addressClass === 'public') return true;
  return options.allowPrivate && !NEVER_ALLOWED.has(addressClass);
}

const DESCRIPTIONS: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  cgnat: 'a carrier-grade NAT (shared) address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast or broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  invalid: 'an invalid address',
};

/** "a private address", for messages such as "resolves to a private address (10.0.0.5)". */
export function describeAddressClass(addressClass: AddressClass): string {
  return DESCRIPTIONS[addressClass];
}
