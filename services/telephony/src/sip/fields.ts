// Reading the header fields the user agent acts on: CSeq, Via, tags in From/To, URIs in name-addrs.

export interface CSeq {
  seq: number;
  method: string;
}

export function parseCSeq(value: string | undefined): CSeq | null {
  const m = value ? /^(\d{1,10})\s+([A-Za-z]+)$/.exec(value.trim()) : null;
  return m ? { seq: Number(m[1]), method: m[2]!.toUpperCase() } : null;
}

export interface Via {
  transport: string;
  host: string;
  port: number | null;
  params: Map<string, string>;
}

export function parseVia(value: string | undefined): Via | null {
  const m = value ? /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+([^;\s]+)\s*(.*)$/.exec(value.trim()) : null;
  if (!m) return null;
  const hostPort = splitHostPort(m[2]!);
  if (!hostPort) return null;
  return { transport: m[1]!.toUpperCase(), ...hostPort, params: parseParams(m[3]!) };
}

/** `;a=b;c` into a map (names lower-case, flags map to ''). */
export function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) params.set(trimmed.toLowerCase(), '');
    else params.set(trimmed.slice(0, eq).trim().toLowerCase(), trimmed.slice(eq + 1).trim());
  }
  return params;
}

/** `host`, `host:port`, `[v6]:port` */
export function splitHostPort(text: string): { host: string; port: number | null } | null {
  const v6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  if (v6) return withPort(v6[1]!, v6[2]);
  const m = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text);
  return m ? withPort(m[1]!, m[2]) : null;
}

function withPort(host: string, port: string | undefined): { host: string; port: number | null } | null {
  if (port === undefined) return { host, port: null };
  const n = Number(port);
  return n >= 1 && n <= 65535 ? { host, port: n } : null;
}

/** The parameters after a name-addr (`"x" <sip:a@b>;tag=1`) or addr-spec (`sip:a@b;tag=1`). */
export function addressParams(value: string): Map<string, string> {
  const close = value.lastIndexOf('>');
  if (close >= 0) return parseParams(value.slice(close + 1));
  const semi = value.indexOf(';');
  return semi >= 0 ? parseParams(value.slice(semi)) : new Map();
}

export function tagOf(value: string | undefined): string | null {
  return value === undefined ? null : (addressParams(value).get('tag') ?? null);
}

/** The URI inside a name-addr, or the addr-spec without header parameters. */
export function uriOf(value: string): string {
  const open = value.indexOf('<');
  const close = value.indexOf('>', open);
  if (open >= 0 && close > open) return value.slice(open + 1, close).trim();
  const semi = value.indexOf(';');
  return (semi >= 0 ? value.slice(0, semi) : value).trim();
}

export interface SipUri {
  scheme: 'sip' | 'sips';
  user: string | null;
  host: string;
  port: number | null;
  params: Map<string, string>;
}

/** A sip: URI, loosely: user part, host, port, URI parameters (headers after `?` are dropped). */
export function parseSipUri(text: string): SipUri | null {
  const m = /^(sips?):(?:([^@]*)@)?([^;?]+)((?:;[^?]*)?)(?:\?.*)?$/i.exec(text.trim());
  if (!m) return null;
  const hostPort = splitHostPort(m[3]!);
  if (!hostPort) return null;
  return {
    scheme: m[1]!.toLowerCase() as 'sip' | 'sips',
    user: m[2] ?? null,
    ...hostPort,
    params: parseParams(m[4] ?? ''),
  };
}
