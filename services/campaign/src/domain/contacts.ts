import { type ContactRow, E164_PATTERN, type SkipReason } from '@voice/shared/contracts';

/** A submitted contact as stored: the number to dial (if usable), the rest, and why it is skipped. */
export interface ClassifiedContact {
  /** The phone_column value as sent, as text; null when it is missing. */
  phone_number: string | null;
  /** Every other key: what the agent sees as metadata.contact. */
  data: Record<string, string | number | boolean | null>;
  /** Null for a dialable contact. Duplicates are found later, across the whole list. */
  skip_reason: Exclude<SkipReason, 'duplicate'> | null;
}

/**
 * Reads one contact: the value under `phoneColumn` must be an E.164 string (surrounding
 * whitespace ignored); absent, null or blank is `missing_phone`, anything else `invalid_phone`.
 */
export function classifyContact(row: ContactRow, phoneColumn: string): ClassifiedContact {
  // The row's own keys only: a phone_column such as `constructor` must not find Object's.
  const raw = Object.hasOwn(row, phoneColumn) ? row[phoneColumn] : undefined;
  const { [phoneColumn]: _own, ...data } = row;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return { phone_number: null, data, skip_reason: 'missing_phone' };
  }
  const phone = typeof raw === 'string' ? raw.trim() : String(raw);
  const valid = typeof raw === 'string' && E164_PATTERN.test(phone);
  return { phone_number: phone, data, skip_reason: valid ? null : 'invalid_phone' };
}
