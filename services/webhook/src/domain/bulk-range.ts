/** 9999-12-31T23:59:59.999Z: the last instant with a four-digit year. */
const LAST_MS = 253_402_300_799_999;

/**
 * A bulk redelivery's range as query bounds. No delivery predates 1970 or follows 9999: clamping
 * to those keeps years that PostgreSQL or the driver's ISO form refuse (0000, +010000 after a
 * negative offset) out of the query.
 */
export function bulkRange(range: { from: string; to: string; limit: number }): {
  from: Date;
  to: Date;
  limit: number;
} {
  const at = (iso: string) => new Date(Math.min(Math.max(Date.parse(iso), 0), LAST_MS));
  return { from: at(range.from), to: at(range.to), limit: range.limit };
}
