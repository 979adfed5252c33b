import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a recording link works after it was issued. */
export const RECORDING_LINK_TTL_SECONDS = 3600;

function signature(secret: string, callId: string, expires: number): string {
  return createHmac('sha256', secret).update(`recording:${callId}:${expires}`).digest('hex');
}

/**
 * A link that plays a call's recording without an API key until it expires: the path names the
 * call, `expires` is Unix seconds, `signature` an HMAC over both, keyed with the operator's secret.
 */
export function signRecordingUrl(input: {
  baseUrl: string;
  callId: string;
  secret: string;
  now?: number;
  ttlSeconds?: number;
}): string {
  const expires =
    Math.floor((input.now ?? Date.now()) / 1000) + (input.ttlSeconds ?? RECORDING_LINK_TTL_SECONDS);
  const url = new URL(`/v1/recordings/${input.callId}.wav`, input.baseUrl);
  url.searchParams.set('expires', String(expires));
  url.searchParams.set('signature', signature(input.secret, input.callId, expires));
  return url.toString();
}

export type RecordingLinkCheck = { ok: true } | { ok: false; reason: 'expired' | 'invalid' };

export function verifyRecordingLink(input: {
  callId: string;
  expires: number;
  signature: string;
  secret: string;
  now?: number;
}): RecordingLinkCheck {
  const expected = Buffer.from(signature(input.secret, input.callId, input.expires), 'hex');
  const given = Buffer.from(input.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'invalid' };
  if (input.expires * 1000 < (input.now ?? Date.now())) return { ok: false, reason: 'expired' };
  return { ok: true };
}
