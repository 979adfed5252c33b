import { CallingWindow } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { numberZoneTable } from '../src/app/number-zone-table';
import { numberZones } from '../src/domain/number-zones';
import { gateByWindow } from '../src/domain/window-gate';

const window = CallingWindow.parse({
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '09:00',
  end: '17:00',
});
const zonesOf = (e164: string) => numberZones(numberZoneTable(), e164);
// Monday 30 November 2026, 15:00 UTC: 10:00 in New York, 07:00 in Los Angeles.
const NOW = new Date('2026-11-30T15:00:00Z');

describe('gateByWindow', () => {
  it('dials contacts inside their window and sends the others to wait for its opening', () => {
    const decision = gateByWindow(
      window,
      [
        { id: 'ny', phone_number: '+12125550100', timezone: null },
        { id: 'la', phone_number: '+14155550100', timezone: undefined },
        // The `timezone` key wins over the number: a New York number in Los Angeles waits.
        { id: 'ny-in-la', phone_number: ' +12125550101 ', timezone: 'America/Los_Angeles' },
        { id: 'la-in-ny', phone_number: '+14155550101', timezone: ' America/New_York ' },
      ],
      zonesOf,
      NOW,
      10,
    );
    const laOpens = new Date('2026-11-30T17:00:00Z'); // 09:00 in Los Angeles
    expect(decision).toEqual({
      dial: ['ny', 'la-in-ny'],
      wait: [
        { id: 'la', until: laOpens },
        { id: 'ny-in-la', until: laOpens },
      ],
    });
  });

  it('stops judging once `free` are to be dialed: the rest stay due, untouched', () => {
    const candidates = ['a', 'b', 'c', 'd'].map((id, i) => ({
      id,
      phone_number: i === 1 ? '+14155550100' : '+12125550100',
      timezone: null,
    }));
    expect(gateByWindow(window, candidates, zonesOf, NOW, 2)).toEqual({
      dial: ['a', 'c'],
      wait: [{ id: 'b', until: new Date('2026-11-30T17:00:00Z') }],
    });
    expect(gateByWindow(window, candidates, zonesOf, NOW, 0)).toEqual({ dial: [], wait: [] });
  });

  it('uses the fallback zone for a number naming no zone, and the campaign zone for everyone when set', () => {
    const unknown = [{ id: 'x', phone_number: '+99912345678', timezone: 'Not/AZone' }];
    const utc = gateByWindow(window, unknown, zonesOf, NOW, 1);
    expect(utc).toEqual({ dial: ['x'], wait: [] }); // 15:00 UTC is inside 09:00-17:00
    const tokyo = CallingWindow.parse({ ...window, fallback_timezone: 'Asia/Tokyo' });
    // 00:00 Tuesday in Tokyo: opens at 09:00 there.
    expect(gateByWindow(tokyo, unknown, zonesOf, NOW, 1).wait).toEqual([
      { id: 'x', until: new Date('2026-12-01T00:00:00Z') },
    ]);
    const campaignZone = CallingWindow.parse({ ...window, timezone: 'America/Los_Angeles' });
    const ny = [{ id: 'ny', phone_number: '+12125550100', timezone: 'America/New_York' }];
    expect(gateByWindow(campaignZone, ny, zonesOf, NOW, 1).dial).toEqual([]);
  });

  it('a number whose prefix spans zones waits until the window is open in all of them', () => {
    // +1 701 (North Dakota) is in Denver's zone and in Central time: 08:00 and 09:00 at NOW.
    expect(zonesOf('+17015550100')).toEqual(['America/Denver', 'America/North_Dakota/Center']);
    const nd = [{ id: 'nd', phone_number: '+17015550100', timezone: null }];
    expect(gateByWindow(window, nd, zonesOf, NOW, 1)).toEqual({
      dial: [],
      wait: [{ id: 'nd', until: new Date('2026-11-30T16:00:00Z') }], // 09:00 in Denver
    });
    expect(gateByWindow(window, nd, zonesOf, new Date('2026-11-30T16:00:00Z'), 1).dial).toEqual(['nd']);
  });

  it('zones whose windows never overlap (all of +1 800: Guam to Pago Pago) use the fallback zone', () => {
    expect(zonesOf('+18005550100').length).toBeGreaterThan(20);
    const free = [{ id: 'toll-free', phone_number: '+18005550100', timezone: null }];
    expect(gateByWindow(window, free, zonesOf, NOW, 1).dial).toEqual(['toll-free']); // 15:00 UTC
    expect(gateByWindow(window, free, zonesOf, new Date('2026-11-30T18:00:00Z'), 1).wait).toEqual([
      { id: 'toll-free', until: new Date('2026-12-01T09:00:00Z') },
    ]);
  });
});
