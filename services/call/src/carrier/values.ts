import type { CollectedDetail } from '@voice/shared';
import type { ContactInfo } from './contact';
import type { Rng } from './prng';

/** A value the simulated contact gives for one collected detail, with the words they say. */
export interface DetailAnswer {
  value: string | number | boolean;
  /** The user's line. */
  spoken: string;
  /** How the agent reads the value back when confirming it. */
  readback: string;
  /** The value came from the call's metadata: the agent asks the contact to confirm it. */
  known: boolean;
}

export interface AnswerContext {
  rng: Rng;
  startedAt: Date;
  contact: ContactInfo;
  /** The dialed number: a natural answer to "best number to call you back on". */
  to: string;
}

const E164 = /^\+[1-9]\d{7,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

export const humanize = (token: string): string => token.replace(/_/g, ' ');

/** Whether `value` is acceptable for `detail`; used to take a value from metadata only when it fits. */
export function fitsType(detail: CollectedDetail, value: unknown): boolean {
  switch (detail.type) {
    case 'string':
      return typeof value === 'string' && value.trim() !== '' && value.length <= 200;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value));
    case 'datetime':
      return typeof value === 'string' && value.includes('T') && !Number.isNaN(Date.parse(value));
    case 'phone':
      return typeof value === 'string' && E164.test(value);
    case 'email':
      return typeof value === 'string' && EMAIL.test(value);
    case 'enum':
      return typeof value === 'string' && (detail.options ?? []).includes(value);
  }
}

const dayLabel = (date: Date): string =>
  date.toLocaleDateString('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' });
const timeLabel = (date: Date): string =>
  date.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });

/** The next weekday on or after `day` (UTC): appointments are not booked for the weekend. */
function weekday(day: Date): Date {
  const dow = day.getUTCDay();
  const shift = dow === 6 ? 2 : dow === 0 ? 1 : 0;
  return new Date(day.getTime() + shift * DAY_MS);
}

/** Skewed towards the first options: catalogues list the hoped-for answer first (high, yes, now). */
function pickOption(rng: Rng, options: readonly string[]): string {
  return options[Math.floor(rng.next() ** 1.6 * options.length)] ?? options[0] ?? '';
}

function numberFor(detail: CollectedDetail, rng: Rng): number {
  // Rating scales are spelled out in the catalogue ("from 1 (poor) to 5 (excellent)").
  const scale = /from (\d+)(?: \([^)]*\))? to (\d+)/.exec(detail.description);
  if (scale) return rng.int(Math.max(Number(scale[1]), Math.ceil(Number(scale[2]) / 2)), Number(scale[2]));
  const key = `${detail.name} ${detail.description}`.toLowerCase();
  if (/salary|income/.test(key)) return rng.int(35, 140) * 1000;
  if (/loan|price|budget/.test(key)) return rng.int(5, 400) * 500;
  if (/amount|damage|cost/.test(key)) return rng.int(4, 120) * 50;
  if (/mileage|odometer/.test(key)) return rng.int(8, 140) * 1000;
  if (/year/.test(key)) return rng.int(1, 15);
  if (/week/.test(key)) return rng.int(1, 8);
  return rng.int(1, 6);
}

const COMPANIES = ['Northwind', 'Contoso', 'Fabrikam', 'Globex', 'Brightline', 'Harbor & Co'];
const STREETS = ['Oak Street', 'Maple Avenue', 'Cedar Lane', 'Elm Road', 'Harbor Drive'];
const FREE_TEXT = [
  'mostly the timing, it has been a busy few weeks',
  'just that it stays simple and quick',
  'a clear price up front, that matters most to me',
  'nothing major, things are going fine overall',
  'getting a written summary by email afterwards',
  'that someone follows up when they say they will',
];

function stringFor(detail: CollectedDetail, ctx: AnswerContext): string {
  const { rng } = ctx;
  const key = detail.name;
  const letters = () => String.fromCharCode(65 + rng.int(0, 25), 65 + rng.int(0, 25));
  if (/vin/.test(key)) return `${letters()}${rng.int(1000, 9999)}`;
  if (/number|reference|_id$|policy/.test(key)) return `${letters()}-${rng.int(100000, 999999)}`;
  if (/postal|zip/.test(key)) return String(rng.int(10000, 99999));
  if (/language/.test(key)) return rng.pick(['Spanish', 'French', 'Mandarin', 'Arabic', 'Portuguese']);
  if (/time/.test(key)) return `around ${rng.int(1, 5)}:${rng.pick(['00', '30'])} pm`;
  if (/address|location/.test(key)) return `${rng.int(2, 980)} ${rng.pick(STREETS)}`;
  if (/insurer|provider|pharmacy|competitor|solution|counsel|party|programme/.test(key)) {
    return rng.pick(COMPANIES);
  }
  return rng.pick(FREE_TEXT);
}

function emailFor(ctx: AnswerContext): string {
  const ascii = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]+/g, '.')
      .replace(/^\.|\.$/g, '');
  const local = ctx.contact.fullName ? ascii(ctx.contact.fullName).toLowerCase() : '';
  const fallback = `${ctx.rng.pick(['alex', 'sam', 'jordan', 'taylor', 'morgan'])}.${ctx.rng.int(10, 99)}`;
  return `${local || fallback}@example.com`;
}

function phoneFor(detail: CollectedDetail, ctx: AnswerContext): string {
  if (!/alternate|other/.test(detail.name) && E164.test(ctx.to) && ctx.rng.chance(0.5)) return ctx.to;
  // 555-0100..0199 is the range North American numbering reserves for fiction.
  return `+1${ctx.rng.int(201, 989)}55501${String(ctx.rng.int(0, 99)).padStart(2, '0')}`;
}

/** A typed value for `detail` (taken from metadata when it holds a fitting one) plus the words. */
export function answerFor(detail: CollectedDetail, ctx: AnswerContext): DetailAnswer {
  const { rng } = ctx;
  const known = ctx.contact.known[detail.name];
  const fromMetadata = fitsType(detail, known);
  const type = detail.type === 'enum' && !detail.options?.length ? 'string' : detail.type;
  let value: string | number | boolean;
  let shown: string;
  if (
    fromMetadata &&
    (typeof known === 'string' || typeof known === 'number' || typeof known === 'boolean')
  ) {
    value = known;
    shown = detail.type === 'enum' ? humanize(String(known)) : String(known);
  } else {
    switch (type) {
      case 'number':
        value = numberFor(detail, rng);
        shown = value.toLocaleString('en-US');
        break;
      case 'boolean':
        value = rng.chance(0.7);
        shown = value ? 'yes' : 'no';
        break;
      case 'date': {
        const day = weekday(new Date(ctx.startedAt.getTime() + rng.int(1, 21) * DAY_MS));
        value = day.toISOString().slice(0, 10);
        shown = dayLabel(day);
        break;
      }
      case 'datetime': {
        const day = weekday(
          new Date((Math.floor(ctx.startedAt.getTime() / DAY_MS) + rng.int(1, 14)) * DAY_MS),
        );
        const at = new Date(day.getTime() + rng.int(9, 16) * 3_600_000 + rng.pick([0, 30]) * 60_000);
        value = at.toISOString().replace('.000Z', 'Z');
        shown = `${dayLabel(at)} at ${timeLabel(at)}`;
        break;
      }
      case 'phone':
        value = phoneFor(detail, ctx);
        shown = value;
        break;
      case 'email':
        value = emailFor(ctx);
        shown = value;
        break;
      case 'enum':
        value = pickOption(rng, detail.options ?? []);
        shown = humanize(value);
        break;
      default:
        value = stringFor(detail, ctx);
        shown = value;
    }
  }
  return {
    value,
    spoken: spokenAnswer(detail.type, value, shown, fromMetadata, rng),
    readback: shown,
    known: fromMetadata,
  };
}

function spokenAnswer(
  type: CollectedDetail['type'],
  value: string | number | boolean,
  shown: string,
  fromMetadata: boolean,
  rng: Rng,
): string {
  if (type === 'boolean' && !fromMetadata) {
    return value
      ? rng.pick(['Yes.', 'Yes, that’s right.', 'Yeah, I think so.'])
      : rng.pick(['No.', 'No, not really.']);
  }
  if (fromMetadata) return rng.pick(['Yes, that’s still right.', 'Yes, that’s correct.']);
  switch (type) {
    case 'date':
    case 'datetime':
      return rng.pick([`How about ${shown}?`, `${shown} would work for me.`]);
    case 'email':
      return `Sure, it’s ${shown}.`;
    case 'phone':
      return `You can use ${shown}.`;
    case 'enum':
      return rng.pick([`I’d say ${shown}.`, `Probably ${shown}.`]);
    case 'number':
      return rng.pick([`About ${shown}.`, `I’d say ${shown}.`]);
    default:
      return `${shown.charAt(0).toUpperCase()}${shown.slice(1)}.`;
  }
}
