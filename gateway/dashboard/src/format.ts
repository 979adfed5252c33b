/** Display helpers shared by the pages. */

export const FINAL_STATUSES = new Set(['COMPLETED', 'NO_ANSWER', 'FAILED', 'VOICEMAIL', 'BUSY']);
export const CALL_STATUSES = ['INITIALIZING', 'RINGING', 'IN_PROGRESS', ...FINAL_STATUSES] as const;

/** "IN_PROGRESS" → "in progress". */
export function label(value: string | null | undefined): string {
  return value ? value.toLowerCase().replaceAll('_', ' ') : '—';
}

// Formatters are made once: building one per cell was most of a busy board's render time.
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const MONEY = new Map<string, Intl.NumberFormat>();

export function time(iso: string | null | undefined): string {
  return iso ? TIME.format(new Date(iso)) : '—';
}

export function dateTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

export function money(amount: number, currency: string): string {
  let format = MONEY.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 4 });
    } catch {
      return `${amount.toFixed(4)} ${currency}`;
    }
    MONEY.set(currency, format);
  }
  return format.format(amount);
}

export function seconds(total: number): string {
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
