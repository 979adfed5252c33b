import { CALL_OUTCOMES, E164_PATTERN, type ExportFormat } from '@voice/shared';

/**
 * The export's lines written by PostgreSQL, as SQL: each call's line in two parts (the recording
 * link goes between them), byte for byte what csvLine and jsonLine (shared/src/contracts/
 * call-export.ts) write from the record, which stay the definition (services/call/test/
 * export-lines.test.ts holds the two to each other on both PostgreSQL versions). The database
 * reads the rows and writes their text anyway; this way the service only copies bytes, where
 * building the lines itself cost it several times what the database spends on them.
 *
 * What JSON text PostgreSQL writes as JavaScript would: strings (to_json escapes as JSON.stringify
 * does), the times (to_char truncates to the millisecond, as toISOString does), costs (trim_scale:
 * the shortest decimal, which is what Number then String give for numeric(12,4)), and jsonb made
 * compact (json_strip_nulls re-writes it without spaces, numbers as stored: as JavaScript wrote
 * them). It cannot: nulls inside a value (json_strip_nulls drops them), keys V8 orders first
 * (array indexes), numbers JavaScript writes with an exponent. A call holding any of these is
 * ODD: its line is left to csvLine or jsonLine.
 */

const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const compact = (json: string) => `json_strip_nulls((${json})::json)::text`;

/**
 * The text of a transcript (jsonb) as a line holds it: what the call service stores beside the
 * transcript, in `transcript_text` (migration 014), when it writes it, so the export does not make
 * it again for every call it writes.
 */
export const transcriptText = (transcript: string) => compact(transcript);

/** Values inside a jsonb whose compact text is not JavaScript's (see above). */
const NOT_AS_JAVASCRIPT = [
  `strict $.** ? (@ == null || (@.type() == "number" && ((@ != 0 && @ > -0.000001 && @ < 0.000001) || @ >= 1e21 || @ <= -1e21)))`,
  `strict $.** ? (@.type() == "object").keyvalue() ? (@.key like_regex "^(0|[1-9][0-9]*)$")`,
];
const notAsJavaScript = (column: string) =>
  NOT_AS_JAVASCRIPT.map((path) => `COALESCE(jsonb_path_exists(${column}, '${path}'), false)`).join(' OR ');

/**
 * A transcript's entries are what the call service wrote: the contract's keys, which are in
 * jsonb's own key order (by length), and no nulls or nested values; the one value it may hold that
 * JavaScript writes otherwise is a confidence below 1e-6 (an exponent). Looked for in the compact
 * text `t` the line is written from, not in the jsonb: that would read (and decompress) it again.
 * strpos, not LIKE '%...%': the same test, a fraction of the time on a long transcript.
 */
const TINY_CONFIDENCE = `(strpos(t.transcript, '"confidence":0.000000') > 0 OR strpos(t.transcript, '"confidence":-0.000000') > 0)`;

/** Whether the call's line is left to the service (see above). */
const ODD = `${notAsJavaScript('c.metadata')} OR ${notAsJavaScript('c.details_collection')} OR ${TINY_CONFIDENCE}`;

/** hasRecording: the gateway signs a link for the call. */
const HAS_RECORDING = `c.status IN (${CALL_OUTCOMES.map((s) => `'${s}'`).join(', ')}) AND c.duration_seconds > 0`;

// JSON values.
const jsonText = (text: string) => `COALESCE(to_json(${text})::text, 'null')`;
const jsonQuoted = (text: string) => `COALESCE('"' || ${text} || '"', 'null')`;
const jsonNumber = (value: string) => `COALESCE((${value})::text, 'null')`;
const jsonb = (value: string) => `COALESCE(${compact(value)}, 'null')`;
const cost = (column: string) => `trim_scale(${column})::text`;
/** Math.round((seconds / 60) * 100) / 100; seconds * 5 / 3 is never half-way, so rounding agrees. */
const MINUTES = 'trim_scale(round(c.duration_seconds * 100 / 60.0) / 100.0)::text';
const DETAILS = `CASE WHEN c.details_collection IS NULL OR c.details_collection = 'null'::jsonb THEN 'null' ELSE concat(
  '{"status":', ${jsonText("c.details_collection->>'status'")},
  ',"score":', ${jsonNumber("c.details_collection->'score'")},
  ',"collected_details":', ${jsonb("c.details_collection->'collected_details'")},
  ',"collected_values":', ${jsonb("c.details_collection->'collected_values'")}, '}') END`;

const JSON_BEFORE_LINK = `concat(
  '{"id":"', c.id, '","session_id":"', c.id, '","status":', to_json(c.status),
  ',"phone_number":', to_json(c.phone_number), ',"source_number":', to_json(c.source_number),
  ',"direction":"outbound","agent":{"id":"', c.agent_id, '","name":', ${jsonText('o.agent_name')},
  '},"agent_id":"', c.agent_id, '","agent_type":', ${jsonText('o.agent_type')},
  ',"user_id":"', c.account_id, '","campaign_id":', ${jsonQuoted('c.campaign_id')},
  ',"metadata":', ${jsonb('c.metadata')},
  ',"created_at":"', ${iso('c.created_at')}, '","started_at":"', ${iso('c.started_at')},
  '","answered_at":', ${jsonQuoted(iso('c.answered_at'))}, ',"ended_at":', ${jsonQuoted(iso('c.ended_at'))},
  ',"duration":', c.duration_seconds, ',"duration_seconds":', c.duration_seconds,
  ',"duration_minutes":', ${MINUTES}, ',"transcript":', o.transcript, ',"recording_url":"')`;

const JSON_AFTER_LINK = `concat(
  '","sentiment":', to_json(COALESCE(c.sentiment, 'neutral')), ',"call_summary":', ${jsonText('c.call_summary')},
  ',"call_end_reason":', ${jsonText('c.call_end_reason')}, ',"ended_by":', ${jsonText('c.ended_by')},
  ',"details_collection":', ${DETAILS}, ',"opted_out":', c.opted_out::text,
  ',"ai_cost":', ${cost('c.ai_cost')}, ',"telephony_cost":', ${cost('c.telephony_cost')},
  ',"total_cost":', ${cost('c.total_cost')}, ',"cost_currency":"USD","prompt_version_id":', ${jsonQuoted('c.prompt_version_id')},
  ',"prompt_hash":', to_json(c.prompt_hash), ',"telephony":{"carrier":', to_json(c.carrier),
  ',"trunk_id":', ${jsonQuoted('c.trunk_id')}, ',"sip_code":', ${jsonNumber('c.sip_code')},
  ',"sip_reason":', ${jsonText('c.sip_reason')}, '}}', chr(10))`;

// CSV cells (csvCell).
const QUOTE_NEEDED = `'[",\\r\\n]'`;
const quoted = (text: string) => `'"' || replace(${text}, '"', '""') || '"'`;
/** csvCell of a string: a formula-like start prefixed with ' (not an E.164 number), quoted if needed. */
function csvText(text: string): string {
  const prefixed = `CASE WHEN ${text} ~ '^[=+\\-@\\t\\r]' AND ${text} !~ '${E164_PATTERN.source.replace('\\d', '[0-9]')}'
    THEN '''' || ${text} ELSE ${text} END`;
  return `COALESCE(CASE WHEN ${text} !~ '^[=+\\-@\\t\\r]|[",\\r\\n]' THEN ${text}
    WHEN ${text} ~ ${QUOTE_NEEDED} THEN ${quoted(prefixed)} ELSE ${prefixed} END, '')`;
}
/** csvCell of an object: its JSON, quoted if needed; null is an empty cell. */
function csvJson(value: string): string {
  const text = compact(value);
  return `CASE WHEN ${value} IS NULL OR ${value} = 'null'::jsonb THEN ''
    WHEN ${text} ~ ${QUOTE_NEEDED} THEN ${quoted(text)} ELSE ${text} END`;
}
/** A transcript is an array of objects: quoted unless empty. */
const CSV_TRANSCRIPT = `CASE WHEN o.transcript = '[]' THEN '[]' ELSE ${quoted('o.transcript')} END`;

// concat_ws leaves a null out altogether: every cell that may be null is '' instead.
const CSV_BEFORE_LINK = `concat_ws(',', c.id, ${csvText('c.status')}, ${csvText('c.phone_number')},
  ${csvText('c.source_number')}, c.agent_id, ${csvText('o.agent_name')}, ${csvText('o.agent_type')},
  COALESCE(c.campaign_id::text, ''), ${iso('c.created_at')}, COALESCE(${iso('c.answered_at')}, ''),
  COALESCE(${iso('c.ended_at')}, ''), c.duration_seconds, ${csvText("COALESCE(c.sentiment, 'neutral')")},
  ${csvText('c.call_end_reason')}, ${csvText('c.ended_by')}, ${csvText('c.call_summary')},
  ${csvText("(c.details_collection->>'status')")}, COALESCE((c.details_collection->'score')::text, ''),
  ${csvJson("(c.details_collection->'collected_values')")}, ${csvJson('c.metadata')}, ${CSV_TRANSCRIPT},
  ${cost('c.ai_cost')}, ${cost('c.telephony_cost')}, ${cost('c.total_cost')}, 'USD', '')`;

const CSV_AFTER_LINK = `concat(',', concat_ws(',', ${csvText('c.prompt_hash')}, ${csvText('c.carrier')},
  COALESCE(c.trunk_id::text, ''), COALESCE(c.sip_code::text, ''), ${csvText('c.sip_reason')}, c.opted_out::text),
  chr(13), chr(10))`;

const LINE: Record<ExportFormat, [string, string]> = {
  jsonl: [JSON_BEFORE_LINK, JSON_AFTER_LINK],
  csv: [CSV_BEFORE_LINK, CSV_AFTER_LINK],
};

/**
 * The columns of an export read, over `call.calls c` joined to ROW_LATERAL `o`:
 * the line's two parts (null for an odd call), whether it has a link, its id and its cursor.
 */
export function lineColumns(format: ExportFormat): string {
  const [before, after] = LINE[format];
  return `CASE WHEN o.odd THEN NULL ELSE ${before} END AS before_link,
    CASE WHEN o.odd THEN NULL ELSE ${after} END AS after_link,
    ${HAS_RECORDING} AS link, c.id,
    to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_at`;
}

/**
 * What the lines read more than once, computed once per row in lateral subqueries (OFFSET 0: never
 * inlined into each use): the transcript's text `t` (as stored; made here for a call stored before
 * migration 014), then whether the row is odd (which reads `t`), the agent's name and type (the
 * agent copy is one jsonb).
 */
export const ROW_LATERAL = `CROSS JOIN LATERAL (SELECT ${ODD} AS odd, t.transcript,
  c.agent_snapshot->>'name' AS agent_name, c.agent_snapshot->>'agent_type' AS agent_type
  FROM (SELECT COALESCE(c.transcript_text, ${transcriptText('c.transcript')}) AS transcript OFFSET 0) t OFFSET 0) o`;
