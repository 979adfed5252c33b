import { CallingWindow } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { numberZoneTable } from '../src/app/number-zone-table';
import {
  contactWindowState,
  recipientZones,
  windowState,
  zoneWindowState,
} from '../src/domain/calling-window';
import { numberZones } from '../src/domain/number-zones';

const weekdays = CallingWindow.parse({
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '09:00',
  end: '20:00',
});
const at = (iso: string) => new Date(iso);

describe('CallingWindow', () => {
  it('defaults to every day, the recipient\u2019s zone and a UTC fallback', () => {
    expect(CallingWindow.parse({ start: '08:00', end: '24:00' })).toEqual({
      days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      start: '08:00',
      end: '24:00',
      timezone: 'recipient',
      fallback_timezone: 'UTC',
    });
  });

  it.each([
    [{ start: '20:00', end: '09:00' }, 'end', 'must be after start'],
    [{ start: '09:00', end: '09:00' }, 'end', 'must be after start'],
    [{ start: '9:00', end: '20:00' }, 'start', 'must be HH:MM'],
    [{ start: '24:00', end: '24:00' }, 'start', 'must be HH:MM'],
    [{ start: '09:00', end: '20:60' }, 'end', 'must be HH:MM'],
    [{ start: '09:00', end: '20:00', days: ['mon', 'Tue'] }, 'days.1', 'Invalid option'],
    [{ start: '09:00', end: '20:00', days: [] }, 'days', ''],
    [{ start: '09:00', end: '20:00', days: ['mon', 'mon'] }, 'days', 'must not repeat a day'],
    [{ start: '09:00', end: '20:00', timezone: 'Mars/Olympus' }, 'timezone', 'IANA time zone'],
    [{ start: '09:00', end: '20:00', fallback_timezone: 'recipient' }, 'fallback_timezone', 'IANA time zone'],
  ])('refuses %j at %s', (input, path, message) => {
    const result = CallingWindow.safeParse(input);
    expect(result.success).toBe(false);
    const issue = result.error?.issues.find((i) => i.path.join('.') === path);
    expect(issue?.message).toContain(message);
  });
});

describe('zoneWindowState', () => {
  it('is open inside the local window, until its end', () => {
    // Friday 2026-11-27, 10:00 in New York (UTC-5).
    expect(zoneWindowState(weekdays, 'America/New_York', at('2026-11-27T15:00:00Z'))).toEqual({
      open: true,
      closesAt: at('2026-11-28T01:00:00Z'),
    });
  });

  it('before the start waits for the same day\u2019s start; after the end for the next window day', () => {
    expect(zoneWindowState(weekdays, 'America/Los_Angeles', at('2026-11-27T15:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-11-27T17:00:00Z'),
    });
    // Friday 20:00 in New York: the window closed; Saturday and Sunday are not window days.
    expect(zoneWindowState(weekdays, 'America/New_York', at('2026-11-28T01:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-11-30T14:00:00Z'),
    });
  });

  it('follows the local clock across a daylight-saving change', () => {
    const daily = CallingWindow.parse({ start: '09:00', end: '17:00' });
    // New York moves to UTC-4 on Sunday 2026-03-08: Saturday opens 14:00Z, Sunday 13:00Z.
    expect(zoneWindowState(daily, 'America/New_York', at('2026-03-07T23:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-03-08T13:00:00Z'),
    });
  });

  it('an end of 24:00 closes at the next local midnight', () => {
    const late = CallingWindow.parse({ start: '18:00', end: '24:00' });
    expect(zoneWindowState(late, 'Europe/Paris', at('2026-11-27T22:30:00Z'))).toEqual({
      open: true,
      closesAt: at('2026-11-27T23:00:00Z'),
    });
  });
});

describe('windowState over several zones', () => {
  it('is open only while every zone is inside the window', () => {
    // 15:00Z Friday: 16:00 in Paris (open), 08:00 in Denver (UTC-7: closed until 09:00 = 16:00Z).
    expect(windowState(weekdays, ['Europe/Paris', 'America/Denver'], at('2026-11-27T15:00:00Z'))).toEqual({
      open: false,
      opensAt: at('2026-11-27T16:00:00Z'),
    });
    expect(windowState(weekdays, ['Europe/Paris', 'America/Denver'], at('2026-11-27T17:30:00Z'))).toEqual({
      open: true,
      closesAt: at('2026-11-27T19:00:00Z'),
    });
  });

  it('is null when the zones\u2019 windows never overlap', () => {
    const short = CallingWindow.parse({ start: '09:00', end: '10:00' });
    expect(windowState(short, ['Europe/London', 'Asia/Tokyo'], at('2026-11-27T12:00:00Z'))).toBeNull();
  });
});

describe('recipientZones', () => {
  const table = numberZoneTable();

  it('infers the zone from the country and area code', () => {
    expect(numberZones(table, '+14155550100')).toEqual(['America/Los_Angeles']);
    expect(numberZones(table, '+12125550100')).toEqual(['America/New_York']);
    expect(numberZones(table, '+33612345678')).toEqual(['Europe/Paris']);
    expect(numberZones(table, '+61891234567')).toEqual(['Australia/Adelaide', 'Australia/Perth']);
  });

  it('prefers a campaign-wide zone, then the contact\u2019s own key, then the number, then the fallback', () => {
    const fixed = CallingWindow.parse({ start: '09:00', end: '20:00', timezone: 'Asia/Tokyo' });
    expect(recipientZones(fixed, 'Europe/Paris', ['America/New_York'])).toEqual({
      zones: ['Asia/Tokyo'],
      source: 'campaign',
    });
    expect(recipientZones(weekdays, ' Europe/Paris ', ['America/New_York'])).toEqual({
      zones: ['Europe/Paris'],
      source: 'contact',
    });
    expect(recipientZones(weekdays, 'Nowhere/Else', ['America/New_York'])).toEqual({
      zones: ['America/New_York'],
      source: 'number',
    });
    expect(recipientZones(weekdays, 42, [])).toEqual({ zones: ['UTC'], source: 'fallback' });
  });

  it('falls back to the fallback zone when the number\u2019s zones never share a window', () => {
    const short = CallingWindow.parse({ start: '09:00', end: '10:00', fallback_timezone: 'Europe/Berlin' });
    const recipient = recipientZones(short, undefined, ['Europe/London', 'Asia/Tokyo']);
    expect(contactWindowState(short, recipient, at('2026-11-27T12:00:00Z'))).toEqual({
      state: { open: false, opensAt: at('2026-11-28T08:00:00Z') },
      zones: ['Europe/Berlin'],
    });
  });
});
