import {
  type Call,
  type CallFilters,
  CsvCell,
  cursorTime,
  DetailsCollection,
  type ExportCall,
  type ExportCursor,
  type ExportFormat,
  type JsonText,
  type Sql,
  TranscriptEntry,
} from '@voice/shared';
import { z } from 'zod';
import { filtered } from './call-repository';
import type { CallRow } from './call-rows';

/**
 * A call as the export reads it: what the record shows, every value as PostgreSQL's text (no
 * Date or parsed JSON made per row only to be written out again), times already in the record's
 * ISO form.
 */
export interface ExportRow {
  id: string;
  account_id: string;
  agent_id: string;
  agent_name: string;
  agent_type: string;
  campaign_id: string | null;
  phone_number: string;
  source_number: string;
  /** jsonb as PostgreSQL writes it (`{"a": 1, "b": [2, 3]}`), or null. */
  metadata: string | null;
  status: Call['status'];
  created_at: string;
  started_at: string;
  answered_at: string | null;
  ended_at: string | null;
  duration_seconds: number;
  /** The transcript as the line writes it (compact JSON, or its CSV cell), or null when it is odd. */
  transcript: string | null;
  /** jsonb text of a transcript the database cannot write as JavaScript would (see ODD_TRANSCRIPT). */
  transcript_odd: string | null;
  sentiment: Call['sentiment'] | null;
  call_summary: string | null;
  call_end_reason: Call['call_end_reason'];
  ended_by: Call['ended_by'];
  details_collection: string | null;
  ai_cost: string;
  telephony_cost: string;
  total_cost: string;
  prompt_version_id: string | null;
  prompt_hash: string;
  carrier: CallRow['carrier'];
  trunk_id: string | null;
  sip_code: number | null;
  sip_reason: string | null;
  opted_out: boolean;
  /** created_at to the microsecond: the cursor past this row. */
  sort_at: string;
}

/** What Date#toISOString writes, from PostgreSQL (both truncate to the millisecond). */
const iso = (column: string) => `to_char(c.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A transcript the database would write otherwise than JavaScript: one with a confidence below
 * 1e-6, which JavaScript writes with an exponent. Otherwise a transcript is written as it is: its
 * entries are what the call service wrote, the contract's keys, which are in jsonb's own key
 * order (by length, see the export test), and their values.
 */
const ODD_TRANSCRIPT = '$[*] ? (@.confidence != 0 && @.confidence > -0.000001 && @.confidence < 0.000001)';

/**
 * The transcript written by the database, the longest part of a line: jsonb's text made compact
 * (json_strip_nulls re-writes JSON without spaces; a transcript has no nulls to strip),
 * for CSV quoted with its quotes doubled. A transcript is an array of objects: quoted unless empty.
 */
const TRANSCRIPT: Record<ExportFormat, string> = {
  jsonl: 'json_strip_nulls(c.transcript::json)::text',
  csv: `CASE WHEN c.transcript = '[]' THEN '[]'
    ELSE '"' || replace(json_strip_nulls(c.transcript::json)::text, '"', '""') || '"' END`,
};

/** The export row's columns (ORDER BY names the table's: these names are the output's). */
function columns(format: ExportFormat): string {
  return `c.id, c.account_id, c.agent_id, c.agent_snapshot->>'name' AS agent_name,
  c.agent_snapshot->>'agent_type' AS agent_type, c.campaign_id, c.phone_number, c.source_number,
  c.metadata::text AS metadata, c.status, ${iso('created_at')} AS created_at, ${iso('started_at')} AS started_at,
  ${iso('answered_at')} AS answered_at, ${iso('ended_at')} AS ended_at, c.duration_seconds,
  CASE WHEN jsonb_path_exists(c.transcript, '${ODD_TRANSCRIPT}') THEN c.transcript::text END AS transcript_odd,
  ${TRANSCRIPT[format]} AS transcript,
  c.sentiment, c.call_summary, c.call_end_reason, c.ended_by,
  c.details_collection::text AS details_collection, c.ai_cost, c.telephony_cost, c.total_cost,
  c.prompt_version_id, c.prompt_hash, c.carrier, c.trunk_id, c.sip_code, c.sip_reason, c.opted_out,
  to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_at`;
}
const COLUMNS: Record<ExportFormat, string> = { jsonl: columns('jsonl'), csv: columns('csv') };

/**
 * jsonb's text whose compact form is not what JSON.parse then JSON.stringify would write: a key
 * V8 orders first (an array index), or a number JavaScript writes otherwise (an exponent below
 * 1e-6 or from 1e21 on, a trailing zero, more digits than a double keeps). It may also match
 * inside a string: such a value just takes the slow path.
 */
const NOT_AS_JAVASCRIPT_WRITES = /"(?:0|[1-9]\d*)": |[[,:] ?-?(?:0\.0{6}|[\d.]{18}|\d*\.\d*0[,\]}])/;
/** A string token, or a space outside strings (jsonb writes one after each `:` and `,`). */
const STRING_OR_SPACE = /("(?:[^"\\]|\\.)*")| /g;

/** jsonb's text as JSON.stringify(JSON.parse(text)) writes it, without building the value. */
export function compactJson(text: string | null): JsonText {
  if (text === null) return 'null' as JsonText;
  if (NOT_AS_JAVASCRIPT_WRITES.test(text)) return JSON.stringify(JSON.parse(text)) as JsonText;
  return text.replace(STRING_OR_SPACE, '$1') as JsonText;
}

const Transcript = z.array(TranscriptEntry);

/** The transcript as the line writes it: the database's, or an odd one as the record has it. */
function transcript(row: ExportRow, format: ExportFormat): JsonText | CsvCell {
  if (row.transcript_odd === null) {
    return format === 'csv' ? new CsvCell(row.transcript!) : (row.transcript as JsonText);
  }
  return JSON.stringify(Transcript.parse(JSON.parse(row.transcript_odd))) as JsonText;
}

/** The record's details as its contract orders them (jsonb orders keys by length). */
function details(text: string | null): Call['details_collection'] {
  return text === null ? null : DetailsCollection.parse(JSON.parse(text));
}

/** The call record of an export row (what toCall makes of a full row, with its long fields as text). */
export function exportCall(row: ExportRow, format: ExportFormat): ExportCall {
  return {
    id: row.id,
    session_id: row.id,
    status: row.status,
    phone_number: row.phone_number,
    source_number: row.source_number,
    direction: 'outbound',
    agent: { id: row.agent_id, name: row.agent_name },
    agent_id: row.agent_id,
    agent_type: row.agent_type,
    user_id: row.account_id,
    campaign_id: row.campaign_id,
    metadata: compactJson(row.metadata),
    created_at: row.created_at,
    started_at: row.started_at,
    answered_at: row.answered_at,
    ended_at: row.ended_at,
    duration: row.duration_seconds,
    duration_seconds: row.duration_seconds,
    duration_minutes: Math.round((row.duration_seconds / 60) * 100) / 100,
    transcript: transcript(row, format),
    sentiment: row.sentiment ?? 'neutral',
    call_summary: row.call_summary,
    call_end_reason: row.call_end_reason,
    ended_by: row.ended_by,
    details_collection: details(row.details_collection),
    opted_out: row.opted_out,
    ai_cost: Number(row.ai_cost),
    telephony_cost: Number(row.telephony_cost),
    total_cost: Number(row.total_cost),
    cost_currency: 'USD',
    prompt_version_id: row.prompt_version_id,
    prompt_hash: row.prompt_hash,
    telephony: {
      carrier: row.carrier,
      trunk_id: row.trunk_id,
      sip_code: row.sip_code,
      sip_reason: row.sip_reason,
    },
  };
}

/**
 * The next `limit` calls after `after` (newest first): a keyset range, served by the index of the
 * filter, reading only what the record shows (of the agent copy its name and type). The cursor's
 * time has microseconds (cursorTime keeps them).
 */
export function exportRows(
  db: Sql,
  accountId: string,
  request: CallFilters & { format: ExportFormat; after: ExportCursor | null; limit: number },
): Promise<ExportRow[]> {
  const { format, after, limit, ...filters } = request;
  return db<ExportRow[]>`
    SELECT ${db.unsafe(COLUMNS[format])} FROM call.calls c WHERE ${filtered(db, accountId, filters)}
    ${after ? db`AND (created_at, id) < (${cursorTime(db, after.created_at)}, ${after.id}::uuid)` : db``}
    ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit}`;
}
