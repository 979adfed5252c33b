import { CallingWindow, type ContactRow, VALIDATION_SAMPLE_ROWS } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { numberZoneTable } from '../src/app/number-zone-table';
import { numberZones } from '../src/domain/number-zones';
import { findings, screenContacts } from '../src/domain/validation';
import { etaSeconds } from '../src/domain/validation-eta';

const zonesOf = (n: string) => numberZones(numberZoneTable(), n);
const NY = ['America/New_York'];
const LA = ['America/Los_Angeles'];
/** A Monday, 00:00 UTC (winter: New York is UTC-5, Los Angeles UTC-8). */
const MONDAY = new Date('2027-01-04T00:00:00Z');

describe('screenContacts and findings', () => {
  const contacts: ContactRow[] = [
    { phone: '+12125550100' }, // 0 valid, New York
    { phone: '' }, // 1 missing (blank)
    { name: 'no phone' }, // 2 missing (absent)
    { phone: '12345' }, // 3 invalid
    { phone: 14155550100 }, // 4 invalid: a number, not a string
    { phone: ' +12125550100 ' }, // 5 duplicate of 0 (trimmed as create trims)
    { phone: '+14155550101' }, // 6 valid, Los Angeles, but listed
    { phone: '+14155550101' }, // 7 duplicate of the listed number
    { phone: '+14155550102', timezone: 'Europe/Paris' }, // 8 valid, its own zone
    { phone: '+99955550100' }, // 9 valid, unknown prefix: fallback
  ];

  it('counts and samples as a create would skip them, the do-not-call number once', () => {
    const screened = screenContacts(contacts, 'phone', undefined, zonesOf);
    const found = findings(screened, new Set(['+14155550101']));
    expect(found.counts).toEqual({
      total: 10,
      valid: 3,
      invalid: 4,
      missing_phone: 2,
      invalid_phone: 2,
      duplicate: 2,
      do_not_call: 1,
    });
    expect(found.problems).toEqual({
      missing_phone: [
        { position: 1, value: null },
        { position: 2, value: null },
      ],
      invalid_phone: [
        { position: 3, value: '12345' },
        { position: 4, value: '14155550100' },
      ],
      duplicate: [
        { position: 5, value: '+12125550100' },
        { position: 7, value: '+14155550101' },
      ],
      do_not_call: [{ position: 6, value: '+14155550101' }],
    });
  });

  it('groups the dialed contacts by zone, each with where its zone came from', () => {
    const found = findings(screenContacts(contacts, 'phone', undefined, zonesOf), new Set());
    const zones = Object.fromEntries(found.zones.map((z) => [z.zone, z]));
    expect(zones['America/New_York']).toMatchObject({ contacts: 1, sources: { number: 1 } });
    expect(zones['America/Los_Angeles']).toMatchObject({ contacts: 1, sources: { number: 1 } });
    expect(zones['Europe/Paris']).toMatchObject({ contacts: 1, sources: { contact: 1 } });
    expect(zones.UTC).toMatchObject({ contacts: 1, sources: { fallback: 1 } });
  });

  it('lists a number whose prefix spans zones under its zones joined by ","', () => {
    const spanning = zonesOf('+17005550100');
    expect(spanning.length).toBeGreaterThan(1);
    const found = findings(
      screenContacts([{ phone: '+17005550100' }], 'phone', undefined, zonesOf),
      new Set(),
    );
    expect(found.zones).toEqual([
      {
        zone: spanning.join(','),
        zones: [...spanning],
        contacts: 1,
        sources: { contact: 0, number: 1, campaign: 0, fallback: 0 },
      },
    ]);
  });

  it('puts everyone in the campaign\u2019s zone when its window names one', () => {
    const window = CallingWindow.parse({ start: '09:00', end: '17:00', timezone: 'Asia/Tokyo' });
    const found = findings(screenContacts(contacts, 'phone', window, zonesOf), new Set());
    expect(found.zones).toEqual([
      {
        zone: 'Asia/Tokyo',
        zones: ['Asia/Tokyo'],
        contacts: 4,
        sources: { contact: 0, number: 0, campaign: 4, fallback: 0 },
      },
    ]);
  });

  it('keeps only the first rows of a kind, counting all', () => {
    const many = Array.from({ length: 25 }, () => ({ phone: 'nope' }));
    const found = findings(screenContacts(many, 'phone', undefined, zonesOf), new Set());
    expect(found.counts.invalid_phone).toBe(25);
    expect(found.problems.invalid_phone.map((r) => r.position)).toEqual(
      Array.from({ length: VALIDATION_SAMPLE_ROWS }, (_, i) => i),
    );
  });
});

describe('etaSeconds', () => {
  const base = { window: undefined, cap: 1, avgCallSeconds: 60, start: MONDAY };

  it('is contacts x length / cap without a window, and shorter at a higher cap', () => {
    expect(etaSeconds({ ...base, groups: [{ zones: NY, contacts: 10 }] })).toBe(600);
    expect(etaSeconds({ ...base, cap: 5, groups: [{ zones: NY, contacts: 10 }] })).toBe(120);
    expect(etaSeconds({ ...base, groups: [] })).toBe(0);
  });

  it('waits for the window to open and stops while it is closed', () => {
    const window = CallingWindow.parse({ start: '09:00', end: '10:00', timezone: 'UTC' });
    // Opens at 09:00 UTC; 60 one-minute calls fill the hour exactly.
    expect(etaSeconds({ ...base, window, groups: [{ zones: ['UTC'], contacts: 60 }] })).toBe(10 * 3600);
    // 61 spill into the next day's window: 09:01 on Tuesday.
    expect(etaSeconds({ ...base, window, groups: [{ zones: ['UTC'], contacts: 61 }] })).toBe(
      24 * 3600 + 9 * 3600 + 60,
    );
  });

  it('reads each group\u2019s window in its own zone', () => {
    // Weekdays: at Monday 00:00 UTC it is still Sunday in both zones.
    const window = CallingWindow.parse({
      days: ['mon', 'tue', 'wed', 'thu', 'fri'],
      start: '09:00',
      end: '17:00',
    });
    // New York opens at 14:00 UTC, Los Angeles at 17:00 UTC; 10 calls each at cap 1.
    const eta = etaSeconds({
      ...base,
      window,
      groups: [
        { zones: NY, contacts: 10 },
        { zones: LA, contacts: 10 },
      ],
    });
    // New York's 10 take 14:00-14:10; Los Angeles's 17:00-17:10.
    expect(eta).toBe(17 * 3600 + 600);
  });

  it('shares the cap between zones open at once', () => {
    const window = CallingWindow.parse({ start: '00:00', end: '24:00' });
    const eta = etaSeconds({
      ...base,
      window,
      cap: 2,
      groups: [
        { zones: NY, contacts: 30 },
        { zones: LA, contacts: 30 },
      ],
    });
    expect(eta).toBe(30 * 60);
  });

  it('skips days the window is closed', () => {
    const window = CallingWindow.parse({ days: ['wed'], start: '09:00', end: '10:00', timezone: 'UTC' });
    expect(etaSeconds({ ...base, window, groups: [{ zones: ['UTC'], contacts: 1 }] })).toBe(
      2 * 86_400 + 9 * 3600 + 60,
    );
  });

  it('reads a zone set whose windows never overlap in the fallback zone, as dialing does', () => {
    // 09:00-10:00 in Kiritimati (UTC+14) is 19:00-20:00 UTC; in Pago Pago (UTC-11), 20:00-21:00.
    const window = CallingWindow.parse({ start: '09:00', end: '10:00', fallback_timezone: 'UTC' });
    const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'];
    expect(etaSeconds({ ...base, window, groups: [{ zones, contacts: 1 }] })).toBe(9 * 3600 + 60);
  });

  it('answers null past its horizon', () => {
    const window = CallingWindow.parse({ days: ['sun'], start: '09:00', end: '09:01', timezone: 'UTC' });
    expect(
      etaSeconds({ ...base, window, avgCallSeconds: 3600, groups: [{ zones: ['UTC'], contacts: 100_000 }] }),
    ).toBeNull();
  });
});
