import { CALL_OUTCOMES, type Call } from './call';
import { E164_PATTERN } from './common';

/**
 * The call export's line formats (GET /v1/calls/export): the call service writes the lines, the
 * gateway puts each call's signed recording link in the gap a line leaves for it (links are signed
 * where the record is served, fresh on every read).
 */

/** A finished call with talk time has a recording, so a link; anything else has no audio: `""`. */
export function hasRecording(call: Pick<Call, 'status' | 'duration_seconds'>): boolean {
  return (CALL_OUTCOMES as readonly string[]).includes(call.status) && call.duration_seconds > 0;
}

/** Spreadsheet apps run cells starting with these as formulas: never let exported data do that. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV cell. Text a spreadsheet would run as a formula gets a leading `'`, except a phone number
 * in E.164 (`+14155550100`): only digits follow its `+`, so it can compute nothing, and every row
 * has two. Numbers (a negative amount) are never prefixed.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !E164_PATTERN.test(text)) text = `'${text}`;
  // split/join: String#replaceAll was measurably slower on the long JSON cells (transcripts).
  return NEEDS_QUOTES.test(text) ? `"${text.split('"').join('""')}"` : text;
}

const CSV_COLUMNS: [string, (call: Call) => unknown][] = [
  ['id', (c) => c.id],
  ['status', (c) => c.status],
  ['phone_number', (c) => c.phone_number],
  ['source_number', (c) => c.source_number],
  ['agent_id', (c) => c.agent.id],
  ['agent_name', (c) => c.agent.name],
  ['agent_type', (c) => c.agent_type],
  ['campaign_id', (c) => c.campaign_id],
  ['created_at', (c) => c.created_at],
  ['answered_at', (c) => c.answered_at],
  ['ended_at', (c) => c.ended_at],
  ['duration_seconds', (c) => c.duration_seconds],
  ['sentiment', (c) => c.sentiment],
  ['call_end_reason', (c) => c.call_end_reason],
  ['ended_by', (c) => c.ended_by],
  ['call_summary', (c) => c.call_summary],
  ['details_status', (c) => c.details_collection?.status],
  ['details_score', (c) => c.details_collection?.score],
  ['collected_values', (c) => c.details_collection?.collected_values],
  ['metadata', (c) => c.metadata],
  ['transcript', (c) => c.transcript],
  ['ai_cost', (c) => c.ai_cost],
  ['telephony_cost', (c) => c.telephony_cost],
  ['total_cost', (c) => c.total_cost],
  ['cost_currency', (c) => c.cost_currency],
  ['recording_url', (c) => c.recording_url],
  ['prompt_hash', (c) => c.prompt_hash],
  ['carrier', (c) => c.telephony.carrier],
  ['trunk_id', (c) => c.telephony.trunk_id],
  ['sip_code', (c) => c.telephony.sip_code],
  ['sip_reason', (c) => c.telephony.sip_reason],
  // Last: columns added later go at the end, so a reader by position keeps working.
  ['opted_out', (c) => c.opted_out],
];
const BEFORE_LINK = CSV_COLUMNS.findIndex(([name]) => name === 'recording_url');

export const CSV_HEADER = CSV_COLUMNS.map(([name]) => name);
/** The CSV export's first line. */
export const CSV_HEADER_LINE = `${CSV_HEADER.join(',')}\r\n`;

/**
 * One call's export line, in two parts: its recording link (or nothing) goes between them. A link
 * needs neither quoting nor escaping in either format (no comma, quote or backslash; it starts
 * with the base URL's scheme, never a formula character).
 */
export type LineParts = [before: string, after: string];

/** An RFC 4180 line (CRLF); objects as JSON text in one cell. `recording_url` is left out. */
export function csvLine(call: Call): LineParts {
  const cells = CSV_COLUMNS.map(([, read], i) => (i === BEFORE_LINK ? '' : csvCell(read(call))));
  return [`${cells.slice(0, BEFORE_LINK).join(',')},`, `,${cells.slice(BEFORE_LINK + 1).join(',')}\r\n`];
}

/**
 * The call record as GET /v1/calls/{id} returns it in `data`, on one line, `recording_url` left
 * out: the record's JSON is written as its fields before and after it (the record's own order).
 */
export function jsonLine(call: Call): LineParts {
  const {
    recording_url: _signedByTheGateway,
    sentiment,
    call_summary,
    call_end_reason,
    ended_by,
    details_collection,
    opted_out,
    ai_cost,
    telephony_cost,
    total_cost,
    cost_currency,
    prompt_version_id,
    prompt_hash,
    telephony,
    ...before
  } = call;
  const after = {
    sentiment,
    call_summary,
    call_end_reason,
    ended_by,
    details_collection,
    opted_out,
    ai_cost,
    telephony_cost,
    total_cost,
    cost_currency,
    prompt_version_id,
    prompt_hash,
    telephony,
  };
  return [
    `${JSON.stringify(before).slice(0, -1)},"recording_url":"`,
    `",${JSON.stringify(after).slice(1)}\n`,
  ];
}
