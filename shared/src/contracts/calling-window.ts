import { z } from 'zod';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const Weekday = z.enum(WEEKDAYS);
export type Weekday = z.infer<typeof Weekday>;

/** True when `name` is a time zone this runtime's ICU knows (IANA names and their aliases). */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const TimeZoneName = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: 'must be an IANA time zone, e.g. America/New_York or UTC' })
  .meta({ example: 'America/New_York' });

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
/** Minutes after midnight of an `HH:MM` clock time (`24:00` is the end of the day). */
export function clockMinutes(value: string): number {
  if (value === '24:00') return 24 * 60;
  return Number(value.slice(0, 2)) * 60 + Number(value.slice(3, 5));
}

export const CallingWindow = z
  .object({
    days: z
      .array(Weekday)
      .min(1)
      .max(7)
      .refine((days) => new Set(days).size === days.length, { message: 'must not repeat a day' })
      .default([...WEEKDAYS])
      .describe(
        'Days calls may be placed on, in the recipient\u2019s (or the given) zone; every day by default',
      ),
    start: z
      .string()
      .regex(HH_MM, 'must be HH:MM, 00:00 to 23:59')
      .describe('Local time calls may start from, HH:MM (24-hour)'),
    end: z
      .string()
      .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'must be HH:MM, 00:01 to 24:00')
      .describe(
        'Local time by which calls must have started, HH:MM (24-hour; 24:00 = midnight), after start',
      ),
    timezone: z
      .union([z.literal('recipient'), TimeZoneName])
      .default('recipient')
      .describe(
        '`recipient` (each contact\u2019s own zone: its `timezone` key, else inferred from its number) or one IANA zone for every contact',
      ),
    fallback_timezone: TimeZoneName.default('UTC').describe(
      'The zone used for a recipient whose zone is unknown (no valid `timezone` key and a number that names no single zone)',
    ),
  })
  .superRefine((window, ctx) => {
    if (HH_MM.test(window.start) && clockMinutes(window.end) <= clockMinutes(window.start)) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'must be after start' });
    }
  })
  .meta({
    id: 'CallingWindow',
    description:
      'When contacts may be called, in local time: contacts outside their window wait and are dialed when it opens',
  });
export type CallingWindow = z.infer<typeof CallingWindow>;
