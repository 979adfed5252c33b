import { MONTHS, WEEKDAYS } from '../english-words';
import { numberAt, TENS_WORDS, UNIT_WORDS } from './numbers';
import { words } from './text';

// Dates and clock times as callers say them, turned into ISO strings relative to "today" in the
// callee's time zone (or UTC when the call's metadata names none). Pure: `now` is handed in.

/** Today's calendar date and clock in one time zone. */
export interface LocalNow {
  year: number;
  month: number;
  day: number;
  /** 0 = Sunday. */
  weekday: number;
  minutes: number;
}

/** `now` as a calendar date and clock in `timeZone`; UTC when the zone is null or unknown. */
export function localNow(now: Date, timeZone: string | null): LocalNow {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: timeZone ?? 'UTC',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(now);
  } catch {
    return localNow(now, 'UTC');
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const year = part('year');
  const month = part('month');
  const day = part('day');
  return {
    year,
    month,
    day,
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
    minutes: (part('hour') % 24) * 60 + part('minute'),
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The ISO date `days` after the local `today`. */
export function addDays(today: Pick<LocalNow, 'year' | 'month' | 'day'>, days: number): string {
  const d = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

export { MONTHS, WEEKDAYS };

const ORDINAL_UNITS: Readonly<Record<string, number>> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
  thirtieth: 30,
};

/** A day of the month at `i` ("fifth", "twenty first", "5th", "5", "five"), with the tokens it took. */
function dayAt(tokens: readonly string[], i: number): { day: number; length: number } | null {
  const t = tokens[i];
  if (t === undefined) return null;
  const digits = /^(\d{1,2})(st|nd|rd|th)?$/.exec(t);
  if (digits) return valid(Number(digits[1]), 1);
  if (t in ORDINAL_UNITS) return valid(ORDINAL_UNITS[t]!, 1);
  if (t === 'twenty' || t === 'thirty') {
    const next = tokens[i + 1];
    const unit = next === undefined ? undefined : (ORDINAL_UNITS[next] ?? UNIT_WORDS[next]);
    if (unit !== undefined && unit < 10) return valid(TENS_WORDS[t]! + unit, 2);
    return valid(TENS_WORDS[t]!, 1);
  }
  if (t in UNIT_WORDS) return valid(UNIT_WORDS[t]!, 1);
  return null;
}

const valid = (day: number, length: number) => (day >= 1 && day <= 31 ? { day, length } : null);

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export interface DateMatch {
  iso: string;
  /** Token span the date took, so a time parser can look at the rest. */
  start: number;
  end: number;
}

/** The first date said in `tokens`, as an ISO date relative to `today`. */
export function dateIn(tokens: readonly string[], today: LocalNow): DateMatch | null {
  for (let i = 0; i < tokens.length; i++) {
    const m = dateAt(tokens, i, today);
    if (m) return m;
  }
  return null;
}

function dateAt(tokens: readonly string[], i: number, today: LocalNow): DateMatch | null {
  const t = tokens[i]!;
  const at = (iso: string, end: number): DateMatch => ({ iso, start: i, end });
  if (t === 'today' || t === 'tonight') return at(addDays(today, 0), i + 1);
  if (t === 'day' && tokens[i + 1] === 'after' && tokens[i + 2] === 'tomorrow')
    return at(addDays(today, 2), i + 3);
  if (t === 'tomorrow') return at(addDays(today, 1), i + 1);
  // "in three days", "in two weeks"
  if (t === 'in') {
    const n = numberAt(tokens, i + 1);
    const unit = n ? tokens[n.end] : undefined;
    if (n && n.start === i + 1 && Number.isInteger(n.value) && n.value <= 366) {
      if (unit === 'days' || unit === 'day') return at(addDays(today, n.value), n.end + 1);
      if (unit === 'weeks' || unit === 'week') return at(addDays(today, 7 * n.value), n.end + 1);
    }
    if (tokens[i + 1] === 'a' && tokens[i + 2] === 'week') return at(addDays(today, 7), i + 3);
  }
  // "monday", "this friday", "next monday": the first such day after today (a week on when it is today,
  // except "this friday" said on a Friday).
  const weekdayAt = (k: number) => WEEKDAYS.indexOf(tokens[k] as (typeof WEEKDAYS)[number]);
  if ((t === 'next' || t === 'this' || t === 'on') && weekdayAt(i + 1) >= 0) {
    const ahead = (weekdayAt(i + 1) - today.weekday + 7) % 7;
    return at(addDays(today, ahead === 0 && t !== 'this' ? 7 : ahead), i + 2);
  }
  if (weekdayAt(i) >= 0) {
    const ahead = (weekdayAt(i) - today.weekday + 7) % 7 || 7;
    return at(addDays(today, ahead), i + 1);
  }
  // "june fifth", "june the fifth", "june 5th"
  const month = MONTHS.indexOf(t as (typeof MONTHS)[number]);
  if (month >= 0) {
    const skip = tokens[i + 1] === 'the' ? 2 : 1;
    const d = dayAt(tokens, i + skip);
    if (d) return calendar(today, month + 1, d.day, tokens, i, i + skip + d.length);
    return null;
  }
  // "the fifth of june", "fifth of june", "the fifth"
  const skip = t === 'the' ? 1 : 0;
  const d = dayAt(tokens, i + skip);
  if (d && (skip === 1 || tokens[i + d.length] === 'of')) {
    const after = i + skip + d.length;
    const named = tokens[after] === 'of' ? MONTHS.indexOf(tokens[after + 1] as (typeof MONTHS)[number]) : -1;
    if (named >= 0) return calendar(today, named + 1, d.day, tokens, i, after + 2);
    if (skip === 1 && isOrdinal(tokens[i + 1]!)) {
      // "the fifth": this month's, or next month's when it has passed.
      const month = d.day >= today.day ? today.month : (today.month % 12) + 1;
      return calendar(today, month, d.day, tokens, i, after);
    }
  }
  return null;
}

const isOrdinal = (t: string) =>
  t in ORDINAL_UNITS || /^\d{1,2}(st|nd|rd|th)$/.test(t) || t === 'twenty' || t === 'thirty';

/** A month and day: this year's, or next year's when it has passed; an explicit year ("2026") wins. */
function calendar(
  today: LocalNow,
  month: number,
  day: number,
  tokens: readonly string[],
  start: number,
  end: number,
): DateMatch | null {
  let year = today.year;
  let stop = end;
  const said = tokens[end] === 'of' || tokens[end] === 'in' ? end + 1 : end;
  const explicit = /^(\d{4})$/.exec(tokens[said] ?? '');
  if (explicit) {
    year = Number(explicit[1]);
    stop = said + 1;
  } else if (month < today.month || (month === today.month && day < today.day)) {
    year += 1;
  }
  if (day > daysInMonth(year, month)) return null;
  return { iso: `${year}-${pad(month)}-${pad(day)}`, start, end: stop };
}

/** The first date in `text` as an ISO date, relative to `today`. */
export function parseDate(text: string, today: LocalNow): string | null {
  return dateIn(words(text), today)?.iso ?? null;
}

// ---------------------------------------------------------------------------------------------
// Clock times

const PM_WORDS = ['pm', 'p.m', 'p.m.', 'afternoon', 'evening', 'tonight'];
const AM_WORDS = ['am', 'a.m', 'a.m.', 'morning'];

/** The first clock time said in `tokens`, as minutes after midnight; null when none. */
export function timeIn(tokens: readonly string[]): number | null {
  const has = (list: readonly string[]) => tokens.some((t) => list.includes(t));
  const pairs = tokens.map((t, k) => `${t} ${tokens[k + 1] ?? ''}`);
  const pm = has(PM_WORDS) || pairs.includes('p m');
  const am = has(AM_WORDS) || pairs.includes('a m');
  if (has(['noon', 'midday'])) return 12 * 60;
  if (has(['midnight'])) return 0;
  const colon = tokens.map((t) => /^(\d{1,2}):(\d{2})$/.exec(t)).find((m) => m);
  if (colon) return clock(Number(colon[1]), Number(colon[2]), am, pm);
  // "half past three", "quarter past ten", "quarter to five"
  for (let i = 0; i < tokens.length; i++) {
    const offset = tokens[i] === 'half' ? 30 : tokens[i] === 'quarter' ? 15 : null;
    if (offset === null) continue;
    const dir = tokens[i + 1];
    const hour = hourAt(tokens, i + 2);
    if ((dir === 'past' || dir === 'after') && hour !== null) return clock(hour, offset, am, pm);
    if ((dir === 'to' || dir === 'before') && hour !== null)
      return clock(hour === 1 ? 12 : hour - 1, 60 - offset, am, pm);
  }
  // "at three", "three thirty", "ten o'clock", "three p m": an hour, then perhaps its minutes.
  const start = tokens.indexOf('at');
  for (let i = start >= 0 ? start + 1 : 0; i < tokens.length; i++) {
    const hour = hourAt(tokens, i);
    if (hour === null) continue;
    const next = tokens[i + 1];
    const marked =
      start >= 0 ||
      am ||
      pm ||
      next === "o'clock" ||
      (next === 'o' && tokens[i + 2] === 'clock') ||
      minutesAt(tokens, i + 1) !== null;
    if (!marked) continue;
    return clock(hour, minutesAt(tokens, i + 1) ?? 0, am, pm);
  }
  // A bare hour is a time only when it is the whole answer ("three").
  const bare = tokens.length === 1 ? hourAt(tokens, 0) : null;
  return bare === null ? null : clock(bare, 0, am, pm);
}

function hourAt(tokens: readonly string[], i: number): number | null {
  const t = tokens[i];
  if (t === undefined) return null;
  const digits = /^(\d{1,2})$/.exec(t);
  if (digits) return Number(digits[1]) <= 23 ? Number(digits[1]) : null;
  const v = UNIT_WORDS[t];
  return v !== undefined && v >= 1 && v <= 12 ? v : null;
}

/** Minutes after an hour: "thirty", "forty five", "oh five", "15". */
function minutesAt(tokens: readonly string[], i: number): number | null {
  const t = tokens[i];
  if (t === undefined) return null;
  if (/^\d{2}$/.test(t)) return Number(t) < 60 ? Number(t) : null;
  if ((t === 'oh' || t === 'o') && tokens[i + 1] && (UNIT_WORDS[tokens[i + 1]!] ?? 10) < 10) {
    return UNIT_WORDS[tokens[i + 1]!]!;
  }
  if (t in TENS_WORDS && TENS_WORDS[t]! < 60) {
    const unit = UNIT_WORDS[tokens[i + 1] ?? ''];
    return TENS_WORDS[t]! + (unit !== undefined && unit < 10 ? unit : 0);
  }
  const teen = UNIT_WORDS[t];
  return teen !== undefined && teen >= 10 ? teen : null;
}

/**
 * Hours and minutes as minutes after midnight. Without a.m./p.m. a 12-hour clock reads as business
 * hours: 8 to 11 in the morning, 12 to 7 in the afternoon or evening.
 */
function clock(hour: number, minutes: number, am: boolean, pm: boolean): number | null {
  if (hour > 23 || minutes > 59) return null;
  let h = hour;
  if (h <= 12) {
    if (pm && h < 12) h += 12;
    else if (am && h === 12) h = 0;
    else if (!am && !pm && h >= 1 && h <= 7) h += 12;
  }
  return h * 60 + minutes;
}

export const isoTime = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/** The first clock time in `text` as `HH:MM`. */
export function parseTime(text: string): string | null {
  const m = timeIn(words(text));
  return m === null ? null : isoTime(m);
}

/** A date and/or a time in `text`: the date's words are taken out before the time is looked for. */
export function parseWhen(text: string, today: LocalNow): { date: string | null; time: string | null } {
  const tokens = words(text);
  const date = dateIn(tokens, today);
  const rest = date ? [...tokens.slice(0, date.start), ...tokens.slice(date.end)] : tokens;
  const minutes = timeIn(rest);
  return { date: date?.iso ?? null, time: minutes === null ? null : isoTime(minutes) };
}

/** How a date reads aloud: "Friday, June 6". */
export function spokenDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!m) return iso;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return `${cap(WEEKDAYS[d.getUTCDay()]!)}, ${cap(MONTHS[d.getUTCMonth()]!)} ${d.getUTCDate()}`;
}

/** How a `HH:MM` time reads aloud: "3 PM", "10:30 AM". */
export function spokenTime(hhmm: string): string {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) return hhmm;
  const h = Number(m[1]);
  const suffix = h >= 12 ? 'PM' : 'AM';
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return m[2] === '00' ? `${h12} ${suffix}` : `${h12}:${m[2]} ${suffix}`;
}
