import { CALL_OUTCOMES, type Call } from './call';
import { E164_PATTERN } from './common';

/**
 * The call export's line formats (GET /v1/calls/export): what the lines are, byte for byte. The call
 * service has PostgreSQL write them (services/call/src/db/export-sql.ts, held to these by its tests)
 * and writes here only the calls the database cannot; the gateway puts each call's signed
 * recording link in the gap a line leaves for it (links are signed where the record is served,
 * fresh on every read).
 */

/** A finished call with talk time has a recording, so a link; anything else has no audio: `""`. */
export function hasRecording(call: Pick<Call, 'status' | 'duration_seconds'>): boolean {
  return (CALL_OUTCOMES as readonly string[]).includes(call.status) && call.duration_seconds > 0;
}

/** Spreadsheet apps run cells starting with these as formulas: never let exported data do that. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A cell's text as it is written: quoted (its quotes doubled) when it holds a quote, comma or line break. */
function quoted(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One CSV cell. Text a spreadsheet would run as a formula gets a leading `'`, except a phone number
 * in E.164 (`+14155550100`): only digits follow its `+`, so it can compute nothing, and every row
 * has two. Numbers (a negative amount) are never prefixed.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !E164_PATTERN.test(text)) {
    return quoted(`'${text}`);
  }
  return quoted(text);
}

/** The link's cell is left empty in the line: the gateway writes it. */
const LINK = Symbol('recording_url');

const CSV_COLUMNS: [string, (call: Call) => string | typeof LINK][] = [
  ['id', (c) => csvCell(c.id)],
  ['status', (c) => csvCell(c.status)],
  ['phone_number', (c) => csvCell(c.phone_number)],
  ['source_number', (c) => csvCell(c.source_number)],
  ['agent_id', (c) => csvCell(c.agent.id)],
  ['agent_name', (c) => csvCell(c.agent.name)],
  ['agent_type', (c) => csvCell(c.agent_type)],
  ['campaign_id', (c) => csvCell(c.campaign_id)],
  ['created_at', (c) => csvCell(c.created_at)],
  ['answered_at', (c) => csvCell(c.answered_at)],
  ['ended_at', (c) => csvCell(c.ended_at)],
  ['duration_seconds', (c) => csvCell(c.duration_seconds)],
  ['sentiment', (c) => csvCell(c.sentiment)],
  ['call_end_reason', (c) => csvCell(c.call_end_reason)],
  ['ended_by', (c) => csvCell(c.ended_by)],
  ['call_summary', (c) => csvCell(c.call_summary)],
  ['details_status', (c) => csvCell(c.details_collection?.status)],
  ['details_score', (c) => csvCell(c.details_collection?.score)],
  ['collected_values', (c) => csvCell(c.details_collection?.collected_values)],
  ['metadata', (c) => csvCell(c.metadata)],
  ['transcript', (c) => csvCell(c.transcript)],
  ['ai_cost', (c) => csvCell(c.ai_cost)],
  ['telephony_cost', (c) => csvCell(c.telephony_cost)],
  ['total_cost', (c) => csvCell(c.total_cost)],
  ['cost_currency', (c) => csvCell(c.cost_currency)],
  ['recording_url', () => LINK],
  ['prompt_hash', (c) => csvCell(c.prompt_hash)],
  ['carrier', (c) => csvCell(c.telephony.carrier)],
  ['trunk_id', (c) => csvCell(c.telephony.trunk_id)],
  ['sip_code', (c) => csvCell(c.telephony.sip_code)],
  ['sip_reason', (c) => csvCell(c.telephony.sip_reason)],
  // Last: columns added later go at the end, so a reader by position keeps working.
  ['opted_out', (c) => csvCell(c.opted_out)],
];

export const CSV_HEADER = CSV_COLUMNS.map(([name]) => name);
/** The CSV export's first line. */
export const CSV_HEADER_LINE = `${CSV_HEADER.join(',')}\r\n`;

/**
 * One call's export line, in two parts: its recording link (or nothing) goes between them, written
 * as the format writes text (csvCell, or a JSON string's inside).
 */
export type LineParts = [before: string, after: string];

/** An RFC 4180 line (CRLF); objects as JSON text in one cell. */
export function csvLine(call: Call): LineParts {
  const cells: string[] = [];
  let before = '';
  for (const [, cell] of CSV_COLUMNS) {
    const text = cell(call);
    if (text === LINK) {
      before = `${cells.join(',')},`;
      cells.length = 0;
    } else cells.push(text);
  }
  return [before, `,${cells.join(',')}\r\n`];
}

/** The record's fields in the record's order: `[name, its JSON]`, the link's as LINK. */
function jsonFields(c: Call): [string, string | typeof LINK][] {
  const json = JSON.stringify;
  return [
    ['id', json(c.id)],
    ['session_id', json(c.session_id)],
    ['status', json(c.status)],
    ['phone_number', json(c.phone_number)],
    ['source_number', json(c.source_number)],
    ['direction', json(c.direction)],
    ['agent', json(c.agent)],
    ['agent_id', json(c.agent_id)],
    ['agent_type', json(c.agent_type)],
    ['user_id', json(c.user_id)],
    ['campaign_id', json(c.campaign_id)],
    ['metadata', json(c.metadata)],
    ['created_at', json(c.created_at)],
    ['started_at', json(c.started_at)],
    ['answered_at', json(c.answered_at)],
    ['ended_at', json(c.ended_at)],
    ['duration', json(c.duration)],
    ['duration_seconds', json(c.duration_seconds)],
    ['duration_minutes', json(c.duration_minutes)],
    ['transcript', json(c.transcript)],
    ['recording_url', LINK],
    ['sentiment', json(c.sentiment)],
    ['call_summary', json(c.call_summary)],
    ['call_end_reason', json(c.call_end_reason)],
    ['ended_by', json(c.ended_by)],
    ['details_collection', json(c.details_collection)],
    ['opted_out', json(c.opted_out)],
    ['ai_cost', json(c.ai_cost)],
    ['telephony_cost', json(c.telephony_cost)],
    ['total_cost', json(c.total_cost)],
    ['cost_currency', json(c.cost_currency)],
    ['prompt_version_id', json(c.prompt_version_id)],
    ['prompt_hash', json(c.prompt_hash)],
    ['telephony', json(c.telephony)],
  ];
}

/** The call record as GET /v1/calls/{id} returns it in `data`, on one line, as JSON.stringify writes it. */
export function jsonLine(call: Call): LineParts {
  const fields: string[] = [];
  let before = '';
  for (const [name, value] of jsonFields(call)) {
    if (value === LINK) {
      before = `{${fields.join(',')},"${name}":"`;
      fields.length = 0;
    } else fields.push(`"${name}":${value}`);
  }
  return [before, `",${fields.join(',')}}\n`];
}
