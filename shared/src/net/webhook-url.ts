import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { type AddressClass, classifyAddress, describeAddressClass, isAllowedClass } from './address-policy';

/** What the agent service answers a webhook URL with: data, so a bad URL becomes one 422 entry. */
export type WebhookUrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

export interface WebhookUrlOptions {
  /** The operator setting WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** Every address a host name resolves to. Default: the OS resolver (`dns.lookup`, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
  /** How long resolution may take before the URL is refused. Default 3000 ms. */
  resolveTimeoutMs?: number;
}

export const WEBHOOK_URL_MAX_LENGTH = 2048;
const DEFAULT_RESOLVE_TIMEOUT_MS = 3000;

/**
 * Names refused without a lookup (unless private addresses are allowed). `localhost` and
 * `*.localhost` are loopback by definition (RFC 6761) and some resolvers (systemd-resolved, browsers)
 * answer them without DNS; the metadata names are the cloud metadata services'. They would mostly be
 * caught by the address check too, but refusing by name does not depend on what this host's
 * resolver happens to say. Other `*.internal` names are not refused by name: the zone is for
 * private use, so such names resolve to private addresses and the address check refuses them,
 * while a split-horizon name that resolves publicly is a legitimate receiver.
 */
const LOCAL_NAMES: ReadonlySet<string> = new Set(['localhost']);
const METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata.google.internal', // GCP
  'metadata.goog', // GCP
  'metadata', // GCP short name via search domain
  'instance-data', // AWS EC2 (via the ec2.internal search domain)
  'instance-data.ec2.internal', // AWS EC2
  'metadata.azure.com', // Azure
  'metadata.tencentyun.com', // Tencent Cloud
]);

/** ASCII whitespace and control characters, which WHATWG URL silently strips or removes. */
function hasInvisible(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Whether `raw` may be stored as an agent's webhook URL. Never throws: every refusal is a
 * `{ ok: false, reason }` whose reason reads as a 422 message ("resolves to a private address
 * (10.0.0.5)").
 *
 * Rules: at most 2048 characters, no whitespace or control characters (WHATWG URL drops them
 * silently, so what was checked could differ from what a reader sees); parsed with WHATWG URL,
 * the parser fetch uses, so numeric IPv4 spellings (`0x7f.1`, `2130706433`) are already canonical
 * here; http or https only; no credentials (they would be sent to the receiver in every request
 * and logged with the URL); a host is required. IP literals are classified directly. Without
 * WEBHOOK_ALLOW_PRIVATE, local and metadata names are refused and any other name must resolve, in
 * time, to addresses that are all public: one private address among public ones is enough for a
 * request to land inside.
 *
 * With WEBHOOK_ALLOW_PRIVATE no name is resolved: almost every address would be allowed anyway
 * (only unspecified and multicast are not; a name answered with those, such as a blocklisting
 * resolver's 0.0.0.0, is still refused at delivery by `createGuardedLookup`), and the tests and the
 * embedded default use loopback receivers where a lookup only adds latency and a way to fail. IP literals are still classified, so 0.0.0.0 and multicast literals stay refused.
 *
 * The check is at save time only; DNS can change afterwards (rebinding), so delivery connects
 * through `createGuardedLookup` as well.
 *
 * On success `url` is `raw` unchanged, so the API echoes what the client sent; every consumer
 * parses it with the same WHATWG parser that was checked here.
 */
export async function checkWebhookUrl(raw: string, options: WebhookUrlOptions): Promise<WebhookUrlVerdict> {
  if (typeof raw !== 'string') return refuse('must be a string');
  if (raw.length === 0) return refuse('must not be empty');
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) {
    return refuse(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters long`);
  }
  if (hasInvisible(raw)) return refuse('must not contain whitespace or control characters');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(`must use http or https, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username !== '' || url.password !== '') return refuse('must not contain a user name or password');
  if (url.href.length > WEBHOOK_URL_MAX_LENGTH) {
    return refuse(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters long`);
  }
  const hostname = url.hostname;
  if (hostname === '') return refuse('must name a host');

  const literal = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(literal) !== 0) {
    const addressClass = classifyAddress(literal);
    return isAllowedClass(addressClass, options)
      ? accept(raw)
      : refuseAddress('names', addressClass, literal);
  }

  if (options.allowPrivate) return accept(raw);

  // "localhost." is the same name as "localhost"; compare without the root dot.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (LOCAL_NAMES.has(name) || name.endsWith('.localhost')) return refuse(`names the local host (${name})`);
  if (METADATA_NAMES.has(name)) return refuse(`names a cloud metadata service (${name})`);

  const resolved = await resolveWithin(
    options.resolve ?? resolveAll,
    hostname,
    options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS,
  );
  if (!resolved.ok) return resolved;
  if (resolved.addresses.length === 0) return refuse(`host ${name} does not resolve to any address`);
  for (const address of resolved.addresses) {
    const addressClass = classifyAddress(address);
    if (!isAllowedClass(addressClass, options)) return refuseAddress('resolves to', addressClass, address);
  }
  return accept(raw);
}

function accept(url: string): WebhookUrlVerdict {
  return { ok: true, url };
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function refuseAddress(verb: 'names' | 'resolves to', addressClass: AddressClass, address: string) {
  return refuse(`${verb} ${describeAddressClass(addressClass)} (${address})`);
}

async function resolveAll(host: string): Promise<string[]> {
  // verbatim: keep the resolver's order; every address is checked, so order only matters for logs.
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}

type Resolution = { ok: true; addresses: string[] } | { ok: false; reason: string };

/**
 * Resolution bounded in time. The OS lookup cannot be cancelled; it finishes in the background and
 * its answer is ignored, which is the best `getaddrinfo` allows.
 */
async function resolveWithin(
  resolve: (host: string) => Promise<string[]>,
  host: string,
  timeoutMs: number,
): Promise<Resolution> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Resolution>((settle) => {
    timer = setTimeout(
      () => settle(refuse(`host ${host} did not resolve within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const lookup = (async (): Promise<Resolution> => {
    try {
      const addresses = await resolve(host);
      return Array.isArray(addresses)
        ? { ok: true, addresses }
        : refuse(`host ${host} could not be resolved`);
    } catch (error) {
      return refuse(`host ${host} could not be resolved${errorCode(error)}`);
    }
  })();
  try {
    return await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return ` (${error.code})`;
  }
  return '';
}
