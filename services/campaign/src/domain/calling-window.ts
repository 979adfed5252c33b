import { type CallingWindow, clockMinutes, isTimeZone, WEEKDAYS } from '@voice/shared/contracts';
import { DateTime } from 'luxon';

// A campaign's calling window in the recipient's local time: which zones a contact is called in,
// and whether a moment is inside the window or when it next opens. Pure: `now` is passed in.

/** Where a contact's zones came from: its `timezone` key, its number, the campaign, or the fallback. */
export type ZoneSource = 'contact' | 'number' | 'campaign' | 'fallback';

export interface RecipientZones {
  /** Every zone the window must be open in: one, or the zones a number's prefix spans. */
  zones: readonly string[];
  source: ZoneSource;
}

/** The key of a contact that names its zone. */
export const CONTACT_TIMEZONE_KEY = 'timezone';

/**
 * The zones a contact is called in. A campaign-wide zone applies to everyone; otherwise a valid
 * `timezone` key of the contact; otherwise the zones its number's prefix names (one for most
 * numbers; several where the prefix spans zones, e.g. a whole country code); the fallback zone
 * when the number names none.
 */
export function recipientZones(
  window: CallingWindow,
  contactTimezone: unknown,
  zonesOfNumber: readonly string[],
): RecipientZones {
  if (window.timezone !== 'recipient') return { zones: [window.timezone], source: 'campaign' };
  if (typeof contactTimezone === 'string' && isTimeZone(contactTimezone.trim())) {
    return { zones: [contactTimezone.trim()], source: 'contact' };
  }
  if (zonesOfNumber.length > 0) return { zones: zonesOfNumber, source: 'number' };
  return { zones: [window.fallback_timezone], source: 'fallback' };
}

export type WindowState = { open: true; closesAt: Date } | { open: false; opensAt: Date };

/** Days searched for an opening: a window has at least one day a week. */
const SEARCH_DAYS = 8;

/** The window in one zone at `now`: open until when, or closed until when. */
export function zoneWindowState(window: CallingWindow, zone: string, now: Date): WindowState {
  const start = clockMinutes(window.start);
  const end = clockMinutes(window.end);
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  for (let offset = 0; offset < SEARCH_DAYS; offset += 1) {
    const day = today.plus({ days: offset });
    const weekday = WEEKDAYS[day.weekday - 1]; // luxon: 1 = Monday
    if (!weekday || !window.days.includes(weekday)) continue;
    // Local clock times, so a daylight-saving change moves the instants with the clock.
    const opens = day.set({ hour: Math.floor(start / 60), minute: start % 60 });
    const closes =
      end === 24 * 60 ? day.plus({ days: 1 }) : day.set({ hour: Math.floor(end / 60), minute: end % 60 });
    if (now < closes.toJSDate()) {
      return now >= opens.toJSDate()
        ? { open: true, closesAt: closes.toJSDate() }
        : { open: false, opensAt: opens.toJSDate() };
    }
  }
  // Unreachable for a valid window (min one day); answer "closed for a week" rather than throw.
  return { open: false, opensAt: today.plus({ days: 7 }).toJSDate() };
}

/** Rounds of "move to the latest opening" before deciding the zones' windows never overlap. */
const OVERLAP_ROUNDS = 16;

/**
 * The window over several zones: open only while it is open in all of them (a number that may be
 * in any of them is called only when that is legal in each). Null when the zones' windows never
 * overlap within a week: the caller then uses the fallback zone.
 */
export function windowState(window: CallingWindow, zones: readonly string[], now: Date): WindowState | null {
  let at = now;
  for (let round = 0; round < OVERLAP_ROUNDS; round += 1) {
    const states = zones.map((zone) => zoneWindowState(window, zone, at));
    const closed = states.filter((s): s is { open: false; opensAt: Date } => !s.open);
    if (closed.length === 0) {
      const closesAt = new Date(
        Math.min(...states.map((s) => (s.open ? s.closesAt.getTime() : Number.POSITIVE_INFINITY))),
      );
      return at === now ? { open: true, closesAt } : { open: false, opensAt: at };
    }
    at = new Date(Math.max(...closed.map((s) => s.opensAt.getTime())));
    if (at.getTime() - now.getTime() > SEARCH_DAYS * 86_400_000) return null;
  }
  return null;
}

/** The window for a contact: its zones' shared window, else the fallback zone's. */
export function contactWindowState(
  window: CallingWindow,
  recipient: RecipientZones,
  now: Date,
): { state: WindowState; zones: readonly string[] } {
  const state = windowState(window, recipient.zones, now);
  if (state) return { state, zones: recipient.zones };
  const fallback = [window.fallback_timezone];
  return { state: zoneWindowState(window, window.fallback_timezone, now), zones: fallback };
}
