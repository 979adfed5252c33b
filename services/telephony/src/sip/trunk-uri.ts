import { isIP } from 'node:net';
import { parseParams, splitHostPort } from './fields';

// A SIP trunk's address as an operator writes it: `sip:host[:port][;transport=udp|tcp]`.

export type SipTransportName = 'udp' | 'tcp';

export interface TrunkAddress {
  host: string;
  port: number;
  transport: SipTransportName;
}

export const TRUNK_URI_MAX_LENGTH = 256;
export const DEFAULT_SIP_PORT = 5060;

const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

export type TrunkUriVerdict = { ok: true; address: TrunkAddress } | { ok: false; issues: string[] };

/** Every problem with a trunk URI, in words an API client can act on (an empty list: valid). */
export function trunkUriIssues(uri: string): string[] {
  const verdict = parseTrunkUri(uri);
  return verdict.ok ? [] : verdict.issues;
}

export function parseTrunkUri(uri: string): TrunkUriVerdict {
  if (uri.length > TRUNK_URI_MAX_LENGTH) return bad(`is longer than ${TRUNK_URI_MAX_LENGTH} characters`);
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(uri.trim());
  if (!m) return bad('must start with sip: (for example sip:trunk.example.com:5060;transport=udp)');
  const scheme = m[1]!.toLowerCase();
  if (scheme === 'sips')
    return bad('sips: (SIP over TLS) is not supported; use sip: with transport=udp or tcp');
  if (scheme !== 'sip') return bad(`scheme ${scheme}: is not supported; use sip:`);
  const rest = m[2]!;
  if (rest.includes('?')) return bad('must not carry URI headers (?...)');
  const semi = rest.indexOf(';');
  const hostPart = semi >= 0 ? rest.slice(0, semi) : rest;
  const issues: string[] = [];
  if (hostPart.includes('@')) issues.push('uri must not carry a user part; put the account name in username');
  const hostPort = hostPart.includes('@') ? null : splitHostPort(hostPart);
  if (!hostPart.includes('@') && (!hostPort || !validHost(hostPort.host))) {
    issues.push('uri needs a host name or IP address, with an optional port from 1 to 65535');
  }
  const params = parseParams(semi >= 0 ? rest.slice(semi) : '');
  const transport = params.get('transport')?.toLowerCase() ?? 'udp';
  if (transport !== 'udp' && transport !== 'tcp')
    issues.push(`uri transport=${transport} is not supported; use udp or tcp`);
  for (const name of params.keys()) {
    if (name !== 'transport' && name !== 'lr') issues.push(`uri parameter ;${name} is not supported`);
  }
  if (issues.length > 0 || !hostPort) return { ok: false, issues };
  return {
    ok: true,
    address: {
      host: hostPort.host,
      port: hostPort.port ?? DEFAULT_SIP_PORT,
      transport: transport as SipTransportName,
    },
  };
}

function validHost(host: string): boolean {
  return isIP(host) !== 0 || (HOSTNAME.test(host) && !/^[\d.]+$/.test(host));
}

function bad(issue: string): TrunkUriVerdict {
  return { ok: false, issues: [`uri ${issue}`] };
}
