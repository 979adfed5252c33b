/**
 * The API key the dashboard signs in with: kept in this tab's sessionStorage only (gone when the
 * tab closes), never in localStorage, a cookie or a URL.
 */
const STORAGE = 'voice-dashboard-key';

export function storedKey(): string {
  return sessionStorage.getItem(STORAGE) ?? '';
}

export function keepKey(key: string): void {
  sessionStorage.setItem(STORAGE, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE);
}

/** What the page shows of a key: its first characters, never the whole secret. */
export function keyPrefix(key: string): string {
  return key.length > 12 ? `${key.slice(0, 12)}…` : key;
}

/** A key as typed or pasted: trimmed, with a pasted "Bearer " dropped. */
export function normaliseKey(typed: string): string {
  return typed.trim().replace(/^Bearer\s+/i, '');
}
