import { z } from 'zod';

/**
 * A SIP trunk's address, `sip:host[:port][;transport=udp|tcp]`, parsed by hand: the URI packages on
 * npm parse whole SIP messages (and pull in a stack) or accept far more than a trunk address may
 * hold. What is refused, each with its own message: any scheme but `sip:` (`sips:`/TLS is not
 * supported), a user or password in the URI (they go in `username` and `password`, which are
 * stored apart and never shown), a missing or malformed host, a port outside 1 to 65535, a
 * transport other than udp or tcp, other parameters and headers.
 */
export const SIP_TRANSPORTS = ['udp', 'tcp'] as const;
export type SipTransport = (typeof SIP_TRANSPORTS)[number];

export const SIP_DEFAULT_PORT = 5060;
export const SIP_URI_MAX = 512;

export interface SipTrunkAddress {
  /** Lower-cased host name, IPv4 address, or IPv6 address without its brackets. */
  host: string;
  port: number;
  transport: SipTransport;
}

export type SipUriParse = { ok: true; address: SipTrunkAddress } | { ok: false; message: string };

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = z.ipv4();
const IPV6 = z.ipv6();

const fail = (message: string): SipUriParse => ({ ok: false, message });

function validHostName(host: string): boolean {
  if (host.length > 253) return false;
  const labels = host.split('.');
  // A dotted all-digits host that is not an IPv4 address (999.1.1.1) is a typo, not a name.
  if (labels.every((l) => /^\d+$/.test(l))) return IPV4.safeParse(host).success;
  return labels.every((label) => HOST_LABEL.test(label));
}

/** `[v6]` or `name`/`v4`, then an optional `:port`. */
function splitHostPort(hostPort: string): { host: string; port: string | undefined } | undefined {
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return undefined;
    const rest = hostPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    return { host: hostPort.slice(1, close), port: rest === '' ? undefined : rest.slice(1) };
  }
  const colon = hostPort.indexOf(':');
  if (colon < 0) return { host: hostPort, port: undefined };
  return { host: hostPort.slice(0, colon), port: hostPort.slice(colon + 1) };
}

function parsePort(text: string | undefined): number | string {
  if (text === undefined) return SIP_DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(text)) return 'the port must be a number from 1 to 65535';
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : 'the port must be a number from 1 to 65535';
}

function parseParams(params: string[]): SipTransport | string {
  let transport: SipTransport = 'udp';
  for (const param of params) {
    const [name = '', value, ...extra] = param.split('=');
    if (name.toLowerCase() !== 'transport' || value === undefined || extra.length > 0) {
      return `'${param.slice(0, 40)}' is not allowed: the only parameter is ;transport=udp or ;transport=tcp`;
    }
    const wanted = value.toLowerCase();
    if (!(SIP_TRANSPORTS as readonly string[]).includes(wanted)) {
      return `transport must be udp or tcp (got '${value.slice(0, 20)}')`;
    }
    transport = wanted as SipTransport;
  }
  return transport;
}

/** Parses a trunk address; a refusal says what is wrong in words fit for a 422. */
export function parseSipTrunkUri(text: string): SipUriParse {
  if (text.length > SIP_URI_MAX) return fail(`must be at most ${SIP_URI_MAX} characters`);
  if (/[\s\p{Cc}]/u.test(text)) return fail('must not contain spaces or control characters');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'sips') return fail('sips: (SIP over TLS) is not supported; use a sip: URI');
  if (scheme !== 'sip') return fail('must be a sip: URI, e.g. sip:trunk.example.com:5060;transport=udp');
  const rest = text.slice(4);
  if (rest.includes('?')) return fail('must not carry headers (?...)');
  if (rest.includes('@')) {
    return fail('must not contain a user or password: give them as username and password instead');
  }
  const [hostPort = '', ...params] = rest.split(';');
  const split = splitHostPort(hostPort);
  if (!split || split.host === '') return fail('must name a host, e.g. sip:trunk.example.com');
  const host = split.host.toLowerCase();
  const bracketed = hostPort.startsWith('[');
  if (bracketed ? !IPV6.safeParse(host).success : !validHostName(host)) {
    return fail(`'${split.host.slice(0, 60)}' is not a valid host name or IP address`);
  }
  const port = parsePort(split.port);
  if (typeof port === 'string') return fail(port);
  const transport = parseParams(params);
  if (!(SIP_TRANSPORTS as readonly string[]).includes(transport)) return fail(transport);
  return { ok: true, address: { host, port, transport: transport as SipTransport } };
}
