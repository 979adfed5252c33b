import {
  type CallingWindow,
  type ContactRow,
  VALIDATION_SAMPLE_ROWS,
  type ValidationCounts,
  type ValidationProblemRows,
  type ValidationRow,
  type ValidationZone,
} from '@voice/shared/contracts';
import { CONTACT_TIMEZONE_KEY, type RecipientZones, recipientZones } from './calling-window';
import { classifyContact } from './contacts';

// A campaign dry run's findings, in two pure passes around one question only the call service can
// answer (which numbers are on the do-not-call list): first what create's classification and
// duplicate check make of each contact, then the counts, sample rows and zones.

/** A number a create would dial, at its first position, with the zones its window is read in. */
export interface Candidate {
  position: number;
  number: string;
  recipient: RecipientZones;
}

export interface Screened {
  total: number;
  /** Unique usable numbers, by position. */
  candidates: Candidate[];
  missing: { count: number; rows: ValidationRow[] };
  invalid: { count: number; rows: ValidationRow[] };
  duplicate: { count: number; rows: ValidationRow[] };
}

/**
 * The window zones are read with when the campaign has none: every contact in its own zone, as a
 * `recipient` window would place it (fallback UTC), so the dry run still says where they are.
 */
export const ZONES_WITHOUT_WINDOW: CallingWindow = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  start: '00:00',
  end: '24:00',
  timezone: 'recipient',
  fallback_timezone: 'UTC',
};

function sample(kind: { count: number; rows: ValidationRow[] }, row: ValidationRow): void {
  kind.count += 1;
  if (kind.rows.length < VALIDATION_SAMPLE_ROWS) kind.rows.push(row);
}

/**
 * What create would make of each contact: classifyContact exactly as addContacts calls it, then a
 * later repeat of a usable number is a duplicate (preparation keeps the first by position).
 * `zonesOf` names a number's zones (numberZones over the table, in the app layer).
 */
export function screenContacts(
  contacts: readonly ContactRow[],
  phoneColumn: string,
  window: CallingWindow | undefined,
  zonesOf: (e164: string) => readonly string[],
): Screened {
  const screened: Screened = {
    total: contacts.length,
    candidates: [],
    missing: { count: 0, rows: [] },
    invalid: { count: 0, rows: [] },
    duplicate: { count: 0, rows: [] },
  };
  const seen = new Set<string>();
  const zonesOfContact = recipientZonesMemo(window ?? ZONES_WITHOUT_WINDOW, zonesOf);
  contacts.forEach((row, position) => {
    const contact = classifyContact(row, phoneColumn);
    const value = contact.phone_number;
    if (contact.skip_reason === 'missing_phone') sample(screened.missing, { position, value });
    else if (contact.skip_reason === 'invalid_phone') sample(screened.invalid, { position, value });
    else if (seen.has(value as string)) sample(screened.duplicate, { position, value });
    else {
      const number = value as string;
      seen.add(number);
      const timezone = contact.data[CONTACT_TIMEZONE_KEY];
      screened.candidates.push({ position, number, recipient: zonesOfContact(timezone, number) });
    }
  });
  return screened;
}

/**
 * recipientZones, with its one costly step (checking a `timezone` key names a zone) made once per
 * distinct key: a list of 100,000 contacts has a handful. The answer is the seam's own: a key
 * that names a zone gives that zone (or the campaign's), any other falls through to the number.
 */
function recipientZonesMemo(
  window: CallingWindow,
  zonesOf: (e164: string) => readonly string[],
): (timezone: unknown, number: string) => RecipientZones {
  const byKey = new Map<string, RecipientZones | null>();
  return (timezone, number) => {
    if (typeof timezone === 'string') {
      let known = byKey.get(timezone);
      if (known === undefined) {
        const zones = recipientZones(window, timezone, []);
        known = zones.source === 'fallback' ? null : zones;
        byKey.set(timezone, known);
      }
      if (known) return known;
    }
    return recipientZones(window, undefined, zonesOf(number));
  };
}

export interface Findings {
  counts: ValidationCounts;
  problems: ValidationProblemRows;
  /** The contacts that would be dialed per zone set (also the ETA's input). */
  zones: ValidationZone[];
}

/** The counts, sample rows and zones, once the listed numbers are known. */
export function findings(screened: Screened, listed: ReadonlySet<string>): Findings {
  const doNotCall = { count: 0, rows: [] as ValidationRow[] };
  const dialed: Candidate[] = [];
  for (const candidate of screened.candidates) {
    if (listed.has(candidate.number))
      sample(doNotCall, { position: candidate.position, value: candidate.number });
    else dialed.push(candidate);
  }
  const { missing, invalid, duplicate } = screened;
  return {
    counts: {
      total: screened.total,
      valid: dialed.length,
      invalid: missing.count + invalid.count,
      missing_phone: missing.count,
      invalid_phone: invalid.count,
      duplicate: duplicate.count,
      do_not_call: doNotCall.count,
    },
    problems: {
      missing_phone: missing.rows,
      invalid_phone: invalid.rows,
      duplicate: duplicate.rows,
      do_not_call: doNotCall.rows,
    },
    zones: zoneCounts(dialed),
  };
}

/** The key of a zone set: its zones joined by ",". */
export const zoneKey = (zones: readonly string[]): string => zones.join(',');

/** Contacts per zone set, most first (ties by name), with where each got its zones. */
export function zoneCounts(dialed: readonly Candidate[]): ValidationZone[] {
  const byKey = new Map<string, ValidationZone>();
  for (const { recipient } of dialed) {
    const key = zoneKey(recipient.zones);
    let zone = byKey.get(key);
    if (!zone) {
      zone = {
        zone: key,
        zones: [...recipient.zones],
        contacts: 0,
        sources: { contact: 0, number: 0, campaign: 0, fallback: 0 },
      };
      byKey.set(key, zone);
    }
    zone.contacts += 1;
    zone.sources[recipient.source] += 1;
  }
  return [...byKey.values()].sort((a, b) => b.contacts - a.contacts || a.zone.localeCompare(b.zone));
}
