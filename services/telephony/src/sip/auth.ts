import { canAnswer, type DigestCredentials, digestAuthorization, parseDigestChallenge } from './digest';
import { parseCSeq } from './fields';
import { header, type SipRequest, type SipResponse } from './message';
import { newBranch } from './requests';

// Answering a 401/407 challenge: the same request again with credentials, a new branch and the
// next CSeq number (RFC 3261 22.2, 22.3). Once per request: a second challenge is final.

export function isChallenge(response: SipResponse): boolean {
  return response.status === 401 || response.status === 407;
}

/** The request with credentials for this challenge, or null when we cannot answer it. */
export function authorizedRetry(
  request: SipRequest,
  challenge: SipResponse,
  credentials: DigestCredentials | null,
): SipRequest | null {
  if (!credentials) return null;
  const proxy = challenge.status === 407;
  const value = header(challenge, proxy ? 'proxy-authenticate' : 'www-authenticate');
  const parsed = value === undefined ? null : parseDigestChallenge(value);
  if (!parsed || !canAnswer(parsed)) return null;
  const cseq = parseCSeq(header(request, 'cseq'));
  if (!cseq) return null;
  const authorization = digestAuthorization(parsed, credentials, {
    method: request.method,
    uri: request.uri,
  });
  let rebranched = false;
  const headers = request.headers
    .filter((h) => h.name !== 'authorization' && h.name !== 'proxy-authorization')
    .map((h) => {
      if (h.name === 'via' && !rebranched) {
        rebranched = true;
        return { name: h.name, value: h.value.replace(/;\s*branch=[^;,\s]+/i, `;branch=${newBranch()}`) };
      }
      if (h.name === 'cseq') return { name: h.name, value: `${cseq.seq + 1} ${cseq.method}` };
      return { ...h };
    });
  headers.push({ name: proxy ? 'proxy-authorization' : 'authorization', value: authorization });
  return { ...request, headers };
}
