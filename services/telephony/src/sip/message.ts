// SIP messages (RFC 3261 section 7): a bounded parser that returns a verdict instead of throwing,
// and a serializer. Header names are kept in their long lower-case form; compact forms are expanded.

export interface SipHeader {
  /** Lower-case long form: `via`, `call-id`, `content-length`... */
  name: string;
  value: string;
}

export interface SipRequest {
  kind: 'request';
  method: string;
  uri: string;
  headers: SipHeader[];
  body: string;
}

export interface SipResponse {
  kind: 'response';
  status: number;
  reason: string;
  headers: SipHeader[];
  body: string;
}

export type SipMessage = SipRequest | SipResponse;

export type ParseResult = { ok: true; message: SipMessage } | { ok: false; error: string };

/** Bounds on untrusted input: a SIP message with SDP is a few kilobytes. */
export const SIP_LIMITS = {
  maxMessageBytes: 32 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxHeaders: 128,
  maxHeaderLineBytes: 4 * 1024,
} as const;

const COMPACT: Readonly<Record<string, string>> = {
  i: 'call-id',
  m: 'contact',
  e: 'content-encoding',
  l: 'content-length',
  c: 'content-type',
  f: 'from',
  s: 'subject',
  k: 'supported',
  t: 'to',
  v: 'via',
  o: 'event',
  u: 'allow-events',
  r: 'refer-to',
  b: 'referred-by',
  x: 'session-expires',
};

/** Canonical spellings for the serializer; others are title-cased. */
const CANONICAL: Readonly<Record<string, string>> = {
  'call-id': 'Call-ID',
  cseq: 'CSeq',
  'www-authenticate': 'WWW-Authenticate',
};

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/;
const STATUS_LINE = /^SIP\/2\.0 ([1-6]\d\d) ?(.*)$/;
const REQUEST_LINE = /^([A-Za-z0-9.!%*_+`'~-]+) (\S+) SIP\/2\.0$/;

export function headerName(raw: string): string {
  const lower = raw.trim().toLowerCase();
  return COMPACT[lower] ?? lower;
}

/** Parses one whole message (a UDP datagram, or one frame cut from a TCP stream). */
export function parseMessage(data: Buffer): ParseResult {
  if (data.length > SIP_LIMITS.maxMessageBytes) return fail('message too large');
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return fail('no end of headers');
  if (end > SIP_LIMITS.maxHeaderBytes) return fail('header section too large');
  const lines = unfold(data.subarray(0, end).toString('utf8').split('\r\n'));
  const first = lines.shift() ?? '';
  if (lines.length > SIP_LIMITS.maxHeaders) return fail('too many headers');
  const headers: SipHeader[] = [];
  for (const line of lines) {
    if (line.length > SIP_LIMITS.maxHeaderLineBytes) return fail('header line too long');
    const colon = line.indexOf(':');
    if (colon <= 0) return fail('malformed header line');
    const name = line.slice(0, colon).trim();
    if (!TOKEN.test(name)) return fail('malformed header name');
    headers.push({ name: headerName(name), value: line.slice(colon + 1).trim() });
  }
  const body = readBody(data.subarray(end + 4), headers);
  if (body === null) return fail('bad Content-Length');
  return startLine(first, headers, body);
}

function startLine(first: string, headers: SipHeader[], body: string): ParseResult {
  for (const required of ['via', 'call-id', 'cseq', 'from', 'to']) {
    if (!headers.some((h) => h.name === required)) return fail(`missing ${required}`);
  }
  const status = STATUS_LINE.exec(first);
  if (status) {
    return {
      ok: true,
      message: { kind: 'response', status: Number(status[1]), reason: status[2] ?? '', headers, body },
    };
  }
  const request = REQUEST_LINE.exec(first);
  if (!request) return fail('malformed start line');
  return {
    ok: true,
    message: { kind: 'request', method: request[1]!.toUpperCase(), uri: request[2]!, headers, body },
  };
}

function readBody(rest: Buffer, headers: SipHeader[]): string | null {
  const declared = headers.find((h) => h.name === 'content-length')?.value;
  if (declared === undefined) return rest.toString('utf8');
  if (!/^\d{1,6}$/.test(declared)) return null;
  const length = Number(declared);
  if (length > rest.length) return null;
  return rest.subarray(0, length).toString('utf8');
}

/** Joins continuation lines (leading whitespace) onto the header they continue. */
function unfold(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && out.length > 0) out[out.length - 1] += ` ${line.trim()}`;
    else out.push(line);
  }
  return out;
}

function fail(error: string): ParseResult {
  return { ok: false, error };
}

export function serializeMessage(message: SipMessage): Buffer {
  const first =
    message.kind === 'request'
      ? `${message.method} ${message.uri} SIP/2.0`
      : `SIP/2.0 ${message.status} ${message.reason}`;
  const body = Buffer.from(message.body, 'utf8');
  const lines = [first];
  for (const h of message.headers) {
    if (h.name !== 'content-length') lines.push(`${displayName(h.name)}: ${h.value}`);
  }
  lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body]);
}

function displayName(name: string): string {
  return (
    CANONICAL[name] ?? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())
  );
}

/** The first value of a header, or undefined. */
export function header(message: SipMessage, name: string): string | undefined {
  return message.headers.find((h) => h.name === name)?.value;
}

/**
 * Every value of a header that may be a comma-separated list (Via, Route, Record-Route, Contact),
 * split on commas outside quotes and angle brackets.
 */
export function headerList(message: SipMessage, name: string): string[] {
  return message.headers.filter((h) => h.name === name).flatMap((h) => splitList(h.value));
}

export function splitList(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && c === '<') depth++;
    else if (!quoted && c === '>') depth--;
    else if (!quoted && depth === 0 && c === ',') {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts.filter((p) => p.length > 0);
}
