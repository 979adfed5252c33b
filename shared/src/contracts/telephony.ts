import { z } from 'zod';
import { CallOutcome, Carrier } from './call';

/**
 * The simulated carrier's test numbers (README, "Calls are simulated for now"): the last four digits of
 * the dialed number pick the outcome, like a carrier's test numbers; any other number completes.
 */
export const SIMULATED_TEST_NUMBERS = {
  '0001': 'no_answer',
  '0002': 'busy',
  '0003': 'voicemail',
  '0004': 'failed',
  '0005': 'completed',
} as const satisfies Record<string, CallOutcome>;
export const SIMULATED_OTHER_OUTCOME = 'completed' satisfies CallOutcome;

/**
 * The test number whose callee asks not to be called again: the call completes, and its record says
 * `opted_out: true` (listed among the test numbers, as `completed`, so clients see every special one).
 */
export const SIMULATED_OPT_OUT_ENDING = '0005' satisfies keyof typeof SIMULATED_TEST_NUMBERS;

const endingOf = (phone: string): string => phone.replace(/\D/g, '').slice(-4);

/** The outcome the simulated carrier gives a call to `phone`. */
export function simulatedOutcomeFor(phone: string): CallOutcome {
  return (SIMULATED_TEST_NUMBERS as Record<string, CallOutcome>)[endingOf(phone)] ?? SIMULATED_OTHER_OUTCOME;
}

/** Whether the simulated callee at `phone` asks not to be called again. */
export function simulatedOptOut(phone: string): boolean {
  return endingOf(phone) === SIMULATED_OPT_OUT_ENDING;
}

/** The test numbers in a sentence: "ending 0001 no_answer, ...; any other number completed". */
export function describeTestNumbers(): string {
  const listed = Object.entries(SIMULATED_TEST_NUMBERS).map(
    ([tail, outcome]) =>
      `${tail} ${outcome}${tail === SIMULATED_OPT_OUT_ENDING ? ' (the callee opts out)' : ''}`,
  );
  return `ending ${listed.join(', ')}; any other number ${SIMULATED_OTHER_OUTCOME}`;
}

/** The telephony provider a call service dials through, as GET /v1/health reports it. */
export const TelephonyProviderInfo = z
  .object({
    provider: Carrier.describe(
      '`simulated`: no real telephone network is dialed; `sip`: calls go out over SIP',
    ),
    time_scale: z
      .number()
      .nullable()
      .describe('The simulated carrier\u2019s pace (SIM_TIME_SCALE: 1 = real time); null for a real carrier'),
    test_numbers: z
      .record(z.string(), CallOutcome)
      .nullable()
      .describe(
        'The simulated carrier\u2019s outcome by the last four digits of the dialed number; ' +
          `\`${SIMULATED_OPT_OUT_ENDING}\` completes with the callee asking not to be called again (opted_out)`,
      ),
    other_numbers: CallOutcome.nullable().describe(
      'The simulated carrier\u2019s outcome for any other number',
    ),
  })
  .meta({ id: 'TelephonyProvider' });
export type TelephonyProviderInfo = z.infer<typeof TelephonyProviderInfo>;

/** What the simulated carrier at `timeScale` reports about itself. */
export function simulatedTelephonyInfo(timeScale: number): TelephonyProviderInfo {
  return {
    provider: 'simulated',
    time_scale: timeScale,
    test_numbers: { ...SIMULATED_TEST_NUMBERS },
    other_numbers: SIMULATED_OTHER_OUTCOME,
  };
}
