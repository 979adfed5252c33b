import { createLogger } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { parseTestClock, testClockFromEnvironment } from '../src/test-clock';

const log = createLogger({ level: 'silent', name: 'test' });

describe('VOICE_TEST_CLOCK', () => {
  it('shows the given time at the anchor and runs at the given speed from there', () => {
    const anchor = Date.now() - 1_000;
    const clock = parseTestClock(`2026-11-30T13:59:00Z@${anchor}x60`);
    const shown = clock.now().getTime() - Date.parse('2026-11-30T13:59:00Z');
    // At least one real second (60 s shown) has passed since the anchor; bounded for a slow machine.
    expect(shown).toBeGreaterThanOrEqual(60_000);
    expect(shown).toBeLessThan(60_000 * 30);
    const real = parseTestClock(`2026-11-30T13:59:00Z@${Date.now()}`);
    expect(Math.abs(real.now().getTime() - Date.parse('2026-11-30T13:59:00Z'))).toBeLessThan(5_000);
  });

  it.each(['2026-11-30T13:59:00Z', 'soon@123', '2026-11-30T13:59:00Z@123x0', '2026-11-30T13:59:00Z@abc'])(
    'refuses %s',
    (value) => {
      expect(() => parseTestClock(value)).toThrow(/VOICE_TEST_CLOCK/);
    },
  );

  it('is real time when unset and refused outside NODE_ENV=test, so production cannot run on it', () => {
    expect(testClockFromEnvironment({ NODE_ENV: 'test' }, log)).toBeUndefined();
    const value = `2026-11-30T13:59:00Z@${Date.now()}`;
    for (const NODE_ENV of ['production', 'development', undefined]) {
      expect(() => testClockFromEnvironment({ NODE_ENV, VOICE_TEST_CLOCK: value }, log)).toThrow(
        /tests only/,
      );
    }
    expect(testClockFromEnvironment({ NODE_ENV: 'test', VOICE_TEST_CLOCK: value }, log)).toBeDefined();
  });
});
