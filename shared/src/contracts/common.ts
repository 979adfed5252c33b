import { z } from 'zod';

export const Uuid = z.uuid();
/** ISO 8601 with a UTC offset, as every timestamp in the API is written. */
export const DateTime = z.iso.datetime({ offset: true });

/** E.164 as the API guide states it: `+`, then 8 to 15 digits, the first not 0. */
export const E164_PATTERN = /^\+[1-9]\d{7,14}$/;
export const E164 = z
  .string()
  .regex(E164_PATTERN, 'must be an E.164 number: + then 8 to 15 digits, the first not 0')
  .meta({ example: '+14155550123' });

/** Free-form JSON object supplied by clients (metadata, contact rows). */
export const JsonObject = z.record(z.string(), z.unknown());

export const PAGE_SIZE_MAX = 100;
export const PAGE_SIZE_DEFAULT = 20;

/** The highest page number a query string can carry (nine digits). */
export const PAGE_MAX = 999_999_999;
const QUERY_DIGITS = /^\d{1,9}$/;

/**
 * A whole number from a query string: digits only (no `0x10`, `1e3` or empty string), or a number
 * when the value arrives already typed (GraphQL, tRPC, the bus); anything else is one
 * `invalid_union` issue ("Invalid input"), as when this was a union of the two forms. Written as a
 * preprocess so that the OpenAPI document shows the number's own schema (integer, bounds, default).
 */
export function queryInt(number: z.ZodNumber, fallback: number) {
  return z
    .preprocess((value: number | string, ctx) => {
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && QUERY_DIGITS.test(value)) return Number(value);
      ctx.addIssue({ code: 'invalid_union', errors: [], input: value, message: 'Invalid input' });
      return value;
    }, number)
    .prefault(fallback);
}

/** Longest cursor accepted: a list's sort key and a page number, encoded (see shared/src/db/paging.ts). */
export const CURSOR_MAX_LENGTH = 512;

/**
 * Lists with more rows than this answer an estimated `total` (`total_exact: false`): counting
 * every row of a long history on each page is what made deep histories slow.
 */
export const EXACT_TOTAL_MAX = 10_000;

export const PageQuery = z.object({
  page: queryInt(z.number().int().min(1).max(PAGE_MAX), 1).describe(
    'Page number, from 1. Ignored when `cursor` is given: the cursor knows which page it leads to',
  ),
  page_size: queryInt(z.number().int().min(1).max(PAGE_SIZE_MAX), PAGE_SIZE_DEFAULT).describe(
    `Items per page (at most ${PAGE_SIZE_MAX})`,
  ),
  cursor: z
    .string()
    .min(1)
    .max(CURSOR_MAX_LENGTH)
    .optional()
    .describe(
      'Opaque: the `next_cursor` of the page before. Continues the list right after that page at the same cost however deep it is; use it with the same filters',
    ),
});
export type PageQuery = z.infer<typeof PageQuery>;

export function Page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item).describe('The items of this page, in list order'),
    page: z.number().int().describe('This page\u2019s number, from 1'),
    page_size: z.number().int().describe('Items per page, as asked for'),
    total: z
      .number()
      .int()
      .describe(
        `Items in the whole list: exact up to ${EXACT_TOTAL_MAX.toLocaleString('en-US')}, an estimate above (see total_exact)`,
      ),
    total_exact: z
      .boolean()
      .describe('Whether `total` was counted (true) or estimated (false, long lists only)'),
    total_pages: z.number().int().describe('Pages in the whole list at this page size (from `total`)'),
    has_more: z.boolean().describe('Whether a later page has items'),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  });
}
export interface PageOf<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  total_exact: boolean;
  total_pages: number;
  has_more: boolean;
  next_cursor: string | null;
}

/** How much of the list a page read: its total, and the cursor past its last item when more follow. */
export interface PageExtent {
  total: number;
  totalExact: boolean;
  /** This page's number: the query's, or the one its cursor led to. */
  page: number;
  /** Null when nothing follows this page. */
  nextCursor: string | null;
}

export function toPage<T>(items: T[], extent: PageExtent, query: Pick<PageQuery, 'page_size'>): PageOf<T> {
  // An estimate can fall short of what was really read: never report fewer pages than exist so far.
  const total = extent.totalExact
    ? extent.total
    : Math.max(extent.total, (extent.page - 1) * query.page_size + items.length);
  const totalPages = Math.ceil(total / query.page_size);
  return {
    items,
    page: extent.page,
    page_size: query.page_size,
    total,
    total_exact: extent.totalExact,
    total_pages: totalPages,
    has_more: extent.nextCursor !== null,
    next_cursor: extent.nextCursor,
  };
}

/** The success envelope of every JSON response. */
export function Envelope<T extends z.ZodType>(data: T) {
  return z.object({
    data,
    request_id: z.string(),
    timestamp: DateTime,
    success: z.literal(true),
  });
}

export const ValidationIssueSchema = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});

/** The error envelope: `detail` is a string, or for 422 a list of problems. */
export const ErrorEnvelope = z
  .object({
    detail: z.union([z.string(), z.array(ValidationIssueSchema)]),
    request_id: z.string(),
    timestamp: DateTime,
    success: z.literal(false),
  })
  .meta({ id: 'Error' });
