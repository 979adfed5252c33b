import { createHash, randomBytes } from 'node:crypto';

// HTTP digest authentication as SIP uses it (RFC 3261 22.4, RFC 2617): MD5, qop=auth or none.

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque: string | null;
  algorithm: string;
  qop: string[];
  stale: boolean;
}

export interface DigestCredentials {
  username: string;
  password: string;
}

/** Reads a `Digest ...` challenge (WWW-Authenticate or Proxy-Authenticate); null if unusable. */
export function parseDigestChallenge(value: string): DigestChallenge | null {
  const m = /^\s*Digest\s+(.*)$/is.exec(value);
  if (!m) return null;
  const params = new Map<string, string>();
  const re = /([A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let p = re.exec(m[1]!); p; p = re.exec(m[1]!)) {
    params.set(p[1]!.toLowerCase(), p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3]!);
  }
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  if (realm === undefined || nonce === undefined) return null;
  return {
    realm,
    nonce,
    opaque: params.get('opaque') ?? null,
    algorithm: params.get('algorithm') ?? 'MD5',
    qop: (params.get('qop') ?? '')
      .split(',')
      .map((q) => q.trim().toLowerCase())
      .filter(Boolean),
    stale: params.get('stale')?.toLowerCase() === 'true',
  };
}

/** True when we can answer this challenge (MD5 only; qop=auth or no qop). */
export function canAnswer(challenge: DigestChallenge): boolean {
  const algorithmOk = challenge.algorithm.toUpperCase() === 'MD5';
  return algorithmOk && (challenge.qop.length === 0 || challenge.qop.includes('auth'));
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');
const quote = (text: string): string => `"${text.replace(/(["\\])/g, '\\$1')}"`;

/**
 * The Authorization (or Proxy-Authorization) value answering `challenge` for one request.
 * `nonceCount` counts the requests that used this nonce, from 1.
 */
export function digestAuthorization(
  challenge: DigestChallenge,
  credentials: DigestCredentials,
  request: { method: string; uri: string },
  nonceCount = 1,
  cnonce: string = randomBytes(8).toString('hex'),
): string {
  const ha1 = md5(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  const ha2 = md5(`${request.method}:${request.uri}`);
  const useQop = challenge.qop.includes('auth');
  const nc = nonceCount.toString(16).padStart(8, '0');
  const response = useQop
    ? md5(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)
    : md5(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [
    `username=${quote(credentials.username)}`,
    `realm=${quote(challenge.realm)}`,
    `nonce=${quote(challenge.nonce)}`,
    `uri=${quote(request.uri)}`,
    `response=${quote(response)}`,
    'algorithm=MD5',
  ];
  if (useQop) parts.push(`cnonce=${quote(cnonce)}`, 'qop=auth', `nc=${nc}`);
  if (challenge.opaque !== null) parts.push(`opaque=${quote(challenge.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}
