import {
  type CallingWindow,
  type Campaign,
  type CampaignContact,
  type CampaignCounts,
  CONTACT_STATES,
  type ContactState,
  type RetryConfig,
  type SkipReason,
} from '@voice/shared';
import type { StoredStatus } from '../domain/lifecycle';

export interface CampaignRow {
  id: string;
  account_id: string;
  name: string;
  agent_id: string;
  phone_number: string;
  phone_column: string;
  max_concurrent_calls: number;
  retry_config: RetryConfig | null;
  calling_window: CallingWindow | null;
  status: StoredStatus;
  counts: Partial<CampaignCounts>;
  sequence: number;
  /** While preparing: contacts below this position have been checked for duplicates. */
  prepared_through: number;
  /** Lasting failures of its preparation's steps in a row. */
  preparation_failures: number;
  /** Set when its preparation failed (it is cancelled then). */
  failure_reason: string | null;
  start_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ContactRowDb {
  campaign_id: string;
  position: number;
  id: string;
  phone_number: string | null;
  data: Record<string, unknown>;
  state: ContactState;
  skip_reason: SkipReason | null;
  failure_reason: string | null;
  attempts: number;
  call_ids: string[];
  current_call_id: string | null;
  dispatched_at: Date | null;
  placed_at: Date | null;
  next_attempt_at: Date | null;
  /** When its retry is due by the backoff alone (a calling window may push next_attempt_at later). */
  retry_at: Date | null;
  updated_at: Date;
}

/** Counts from `state -> n` rows: every state present, total their sum. */
export function countsFrom(rows: readonly { state: string; n: number }[]): CampaignCounts {
  const counts = Object.fromEntries(CONTACT_STATES.map((state) => [state, 0])) as Record<
    ContactState,
    number
  >;
  let total = 0;
  for (const { state, n } of rows) {
    if (state in counts) counts[state as ContactState] += n;
    total += n;
  }
  return { total, ...counts };
}

/** The counts a campaign row holds, every state present (a row stored before a state existed lacks it). */
export function storedCounts(row: Pick<CampaignRow, 'counts'>): CampaignCounts {
  return { ...countsFrom([]), ...row.counts };
}

/** The columns a campaign's public form needs: all a list page reads. */
export const CAMPAIGN_COLUMNS = [
  'id',
  'name',
  'agent_id',
  'phone_number',
  'phone_column',
  'max_concurrent_calls',
  'retry_config',
  'calling_window',
  'status',
  'counts',
  'start_at',
  'created_at',
  'started_at',
  'finished_at',
  'failure_reason',
] as const satisfies readonly (keyof CampaignRow)[];
export type CampaignView = Pick<CampaignRow, (typeof CAMPAIGN_COLUMNS)[number]>;

/** The columns a contact's public form needs: all a list page reads. */
export const CONTACT_COLUMNS = [
  'id',
  'campaign_id',
  'position',
  'phone_number',
  'data',
  'state',
  'attempts',
  'call_ids',
  'skip_reason',
  'failure_reason',
  'next_attempt_at',
  'updated_at',
] as const satisfies readonly (keyof ContactRowDb)[];
export type ContactView = Pick<ContactRowDb, (typeof CONTACT_COLUMNS)[number]>;

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toCampaign(row: CampaignView): Campaign {
  if (row.status === 'draft') throw new Error(`campaign ${row.id} is a draft: it has no public form`);
  return {
    id: row.id,
    name: row.name,
    agent_id: row.agent_id,
    phone_number: row.phone_number,
    phone_column: row.phone_column,
    max_concurrent_calls: row.max_concurrent_calls,
    retry_config: row.retry_config,
    calling_window: row.calling_window,
    status: row.status,
    counts: storedCounts(row),
    start_at: iso(row.start_at),
    created_at: row.created_at.toISOString(),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    ...(row.failure_reason ? { failure_reason: row.failure_reason } : {}),
  };
}

export function toContact(row: ContactView): CampaignContact {
  return {
    id: row.id,
    campaign_id: row.campaign_id,
    position: row.position,
    phone_number: row.phone_number,
    data: row.data,
    state: row.state,
    attempts: row.attempts,
    call_ids: row.call_ids,
    skip_reason: row.skip_reason,
    failure_reason: row.failure_reason,
    next_attempt_at: iso(row.next_attempt_at),
    updated_at: row.updated_at.toISOString(),
  };
}
