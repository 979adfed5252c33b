import { createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@voice/shared/contracts';

/** Lowercase hex HMAC-SHA256 of the raw body (docs/api-guide.md, "Webhooks"). */
export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, for receivers wanting replay protection. */
export function signTimestamped(secret: string, body: Buffer | string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The signature headers of one attempt (none without a secret). */
export function signatureHeaders(
  secret: string | null,
  body: Buffer,
  now = Date.now(),
): Record<string, string> {
  if (!secret) return {};
  return {
    [WEBHOOK_HEADERS.signature]: signBody(secret, body),
    [WEBHOOK_HEADERS.signatureTimestamped]: signTimestamped(secret, body, Math.floor(now / 1000)),
  };
}
