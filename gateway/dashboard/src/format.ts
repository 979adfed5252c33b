/** Display helpers shared by the pages. */

export const FINAL_STATUSES = new Set(['COMPLETED', 'NO_ANSWER', 'FAILED', 'VOICEMAIL', 'BUSY']);
export const CALL_STATUSES = ['INITIALIZING', 'RINGING', 'IN_PROGRESS', ...FINAL_STATUSES] as const;

/** "IN_PROGRESS" → "in progress". */
export function label(value: string | null | undefined): string {
  return value ? value.toLowerCase().replaceAll('_', ' ') : '—';
}

export function time(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleTimeString() : '—';
}

export function dateTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 4 }).format(
      amount,
    );
  } catch {
    return `${amount.toFixed(4)} ${currency}`;
  }
}

export function seconds(total: number): string {
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
