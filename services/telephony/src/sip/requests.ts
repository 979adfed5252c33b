import { randomBytes } from 'node:crypto';
import type { SipTransport } from '@voice/shared/contracts';
import { parseCSeq } from './fields';
import { header, type SipHeader, type SipRequest, type SipResponse } from './message';

// Building the requests and responses the user agent sends (RFC 3261 8.1.1, 8.2.6, 9.1, 17.1.1.3).

export const ALLOWED_METHODS = 'INVITE, ACK, CANCEL, BYE, OPTIONS';
/** The magic cookie marks RFC 3261 branch ids. */
const BRANCH_COOKIE = 'z9hG4bK';

const token = (bytes: number): string => randomBytes(bytes).toString('hex');
export const newBranch = (): string => `${BRANCH_COOKIE}${token(8)}`;
export const newTag = (): string => token(6);
export const newCallId = (): string => token(12);

/** Where we are, as the far end should see it (Via sent-by, Contact). */
export interface LocalAddress {
  host: string;
  port: number;
}

export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function viaValue(local: LocalAddress, transport: SipTransport, branch: string): string {
  return `SIP/2.0/${transport.toUpperCase()} ${hostPort(local.host, local.port)};branch=${branch};rport`;
}

export function contactValue(user: string, local: LocalAddress, transport: SipTransport): string {
  const params = transport === 'tcp' ? ';transport=tcp' : '';
  return `<sip:${user}@${hostPort(local.host, local.port)}${params}>`;
}

const copy = (request: SipRequest, names: string[]): SipHeader[] =>
  request.headers.filter((h) => names.includes(h.name)).map((h) => ({ ...h }));

/** ACK for a non-2xx final response: part of the INVITE transaction (17.1.1.3). */
export function ackForFailure(invite: SipRequest, response: SipResponse): SipRequest {
  const seq = parseCSeq(header(invite, 'cseq'))?.seq ?? 1;
  const topVia = invite.headers.find((h) => h.name === 'via');
  return {
    kind: 'request',
    method: 'ACK',
    uri: invite.uri,
    headers: [
      ...(topVia ? [{ ...topVia }] : []),
      ...copy(invite, ['max-forwards', 'route', 'from', 'call-id']),
      { name: 'to', value: header(response, 'to') ?? header(invite, 'to') ?? '' },
      { name: 'cseq', value: `${seq} ACK` },
    ],
    body: '',
  };
}

/** CANCEL for a pending INVITE: same branch, Call-ID, From, To, CSeq number (9.1). */
export function cancelFor(invite: SipRequest): SipRequest {
  const seq = parseCSeq(header(invite, 'cseq'))?.seq ?? 1;
  const topVia = invite.headers.find((h) => h.name === 'via');
  return {
    kind: 'request',
    method: 'CANCEL',
    uri: invite.uri,
    headers: [
      ...(topVia ? [{ ...topVia }] : []),
      ...copy(invite, ['max-forwards', 'route', 'from', 'to', 'call-id']),
      { name: 'cseq', value: `${seq} CANCEL` },
    ],
    body: '',
  };
}

/** A response to `request` (8.2.6): Via, From, Call-ID, CSeq copied; our tag added to To. */
export function responseTo(
  request: SipRequest,
  status: number,
  reason: string,
  options: { toTag?: string; headers?: SipHeader[]; body?: string } = {},
): SipResponse {
  let to = header(request, 'to') ?? '';
  if (options.toTag && !/;\s*tag=/i.test(to)) to = `${to};tag=${options.toTag}`;
  return {
    kind: 'response',
    status,
    reason,
    headers: [
      ...copy(request, ['via', 'from']),
      { name: 'to', value: to },
      ...copy(request, ['call-id', 'cseq']),
      ...(options.headers ?? []),
    ],
    body: options.body ?? '',
  };
}
