import type { Clock, Logger } from '@voice/shared';

/**
 * A clock for tests of the process topology, where a test cannot hand a clock object to the
 * campaign service: `VOICE_TEST_CLOCK=<ISO time>@<epoch ms>[x<speed>]` reads the ISO time at the
 * real instant <epoch ms> and runs `speed` times as fast as real time from there (default 1). Every
 * process (and every restart) given the same value shows the same time.
 *
 * Not operator configuration (not in Config): honoured only when NODE_ENV is `test`, and a start
 * with it set under any other NODE_ENV fails, so it cannot be left on in production (whose image
 * sets NODE_ENV=production) by accident.
 */
export const TEST_CLOCK_VARIABLE = 'VOICE_TEST_CLOCK';

const FORMAT = /^([^@]+)@(\d{1,15})(?:x(\d+(?:\.\d+)?))?$/;

export function parseTestClock(value: string): Clock {
  const match = FORMAT.exec(value);
  const shown = match ? Date.parse(match[1]!) : Number.NaN;
  if (!match || Number.isNaN(shown)) {
    throw new Error(`${TEST_CLOCK_VARIABLE} must be <ISO time>@<epoch ms>[x<speed>], not ${value}`);
  }
  const anchor = Number(match[2]);
  const speed = match[3] === undefined ? 1 : Number(match[3]);
  if (!(speed > 0 && speed <= 100_000))
    throw new Error(`${TEST_CLOCK_VARIABLE}: speed must be in (0, 100000]`);
  return { now: () => new Date(shown + (Date.now() - anchor) * speed) };
}

/** The clock VOICE_TEST_CLOCK asks for; undefined (real time) when unset. */
export function testClockFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
): Clock | undefined {
  const value = env[TEST_CLOCK_VARIABLE];
  if (value === undefined || value === '') return undefined;
  if (env.NODE_ENV !== 'test') {
    throw new Error(`${TEST_CLOCK_VARIABLE} is for tests only: it is refused unless NODE_ENV=test`);
  }
  const clock = parseTestClock(value);
  log.warn(
    { [TEST_CLOCK_VARIABLE]: value, now: clock.now().toISOString() },
    'the campaign service runs on a test clock',
  );
  return clock;
}
