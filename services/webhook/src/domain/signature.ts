import { createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@voice/shared/contracts';

/** Lowercase hex HMAC-SHA256 of the raw body (docs/api-guide.md, "Webhooks"). */
export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, for receivers wanting replay
 * protection; with several secrets (a rotation's overlap) one `v1=` per secret, newest first.
 */
export function signTimestamped(
  secret: string | readonly string[],
  body: Buffer | string,
  unixSeconds: number,
): string {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const macs = secrets.map(
    (one) => `v1=${createHmac('sha256', one).update(`${unixSeconds}.`).update(body).digest('hex')}`,
  );
  return [`t=${unixSeconds}`, ...macs].join(',');
}

/**
 * The signature headers of one attempt (none without a secret): X-Service-Signature with the
 * newest secret, the timestamped header with every secret given (newest first).
 */
export function signatureHeaders(
  secrets: string | null | readonly string[],
  body: Buffer,
  now = Date.now(),
): Record<string, string> {
  const all = secrets === null ? [] : typeof secrets === 'string' ? [secrets] : secrets;
  const newest = all[0];
  if (!newest) return {};
  return {
    [WEBHOOK_HEADERS.signature]: signBody(newest, body),
    [WEBHOOK_HEADERS.signatureTimestamped]: signTimestamped(all, body, Math.floor(now / 1000)),
  };
}
