import type { CallFilters, ExportCursor, Sql } from '@voice/shared';
import { filtered } from './call-repository';
import type { CallRow } from './call-rows';

/** What an export line shows of a call (toCall reads it), and its sort key for the next chunk. */
export type ExportRow = Omit<CallRow, 'agent_snapshot' | 'owner' | 'sequence' | 'dialed_at' | 'recorded'> & {
  agent_snapshot: Pick<CallRow['agent_snapshot'], 'name' | 'agent_type'>;
  /** created_at to the microsecond, ISO 8601: the cursor past this row. */
  sort_at: string;
};

/**
 * The next `limit` calls after `after` (newest first): a keyset range, served by the index of the
 * filter, reading only what the record shows (of the agent copy its name and type).
 */
export function exportRows(
  db: Sql,
  accountId: string,
  filters: CallFilters,
  after: ExportCursor | null,
  limit: number,
): Promise<ExportRow[]> {
  return db<ExportRow[]>`
    SELECT id, account_id, agent_id, campaign_id, phone_number, source_number, metadata, status, created_at,
      started_at, answered_at, ended_at, duration_seconds, transcript, sentiment, call_summary, call_end_reason,
      ended_by, details_collection, ai_cost, telephony_cost, total_cost, prompt_version_id, prompt_hash, carrier,
      trunk_id, sip_code, sip_reason, opted_out,
      jsonb_build_object('name', agent_snapshot->'name', 'agent_type', agent_snapshot->'agent_type') AS agent_snapshot,
      to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_at
    FROM call.calls WHERE ${filtered(db, accountId, filters)}
    ${after ? db`AND (created_at, id) < (${after.created_at}::timestamptz, ${after.id}::uuid)` : db``}
    ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
}
