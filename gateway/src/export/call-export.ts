import { type Call, E164_PATTERN } from '@voice/shared';

/** Spreadsheet apps run cells starting with these as formulas: never let exported data do that. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell. Text a spreadsheet would run as a formula gets a leading `'`, except a phone number
 * in E.164 (`+14155550100`): only digits follow its `+`, so it can compute nothing, and every row
 * has two. Numbers (a negative amount) are never prefixed.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !E164_PATTERN.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const COLUMNS: [string, (call: Call) => unknown][] = [
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

export const CSV_HEADER = COLUMNS.map(([name]) => name);

/** RFC 4180 lines (CRLF), header first; objects as JSON text in one cell. */
export async function* csvLines(calls: AsyncIterable<Call>): AsyncGenerator<string> {
  yield `${CSV_HEADER.join(',')}\r\n`;
  for await (const call of calls) yield `${COLUMNS.map(([, read]) => csvCell(read(call))).join(',')}\r\n`;
}

/** One call record per line, exactly as GET /v1/calls/{id} returns it in `data`. */
export async function* jsonLines(calls: AsyncIterable<Call>): AsyncGenerator<string> {
  for await (const call of calls) yield `${JSON.stringify(call)}\n`;
}
