import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Keys look like `vk_<43 url-safe characters>`: 256 random bits, recognisable in leaked-secret scans. */
const KEY_PREFIX = 'vk_';
const DISPLAY_PREFIX_LENGTH = 10;

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** What a person sees in a key list: enough to tell keys apart, never enough to use one. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time comparison of two secrets of any length (hashing first equalises lengths). */
export function sameSecret(a: string, b: string): boolean {
  return sameDigest(hashApiKey(a), hashApiKey(b));
}

export type BearerParse = { ok: true; token: string } | { ok: false; reason: 'missing' | 'malformed' };

const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

export function parseBearer(header: string | undefined): BearerParse {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !TOKEN_PATTERN.test(match[1])) return { ok: false, reason: 'malformed' };
  return { ok: true, token: match[1] };
}
