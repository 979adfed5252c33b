import type { AgentSnapshot, Call, CallStatus, Carrier } from '@voice/shared';

/** The agent as a call keeps it: everything the carrier and the record need, not the prompt text. */
export type AgentCopy = Omit<AgentSnapshot, 'prompt'>;

/** The copy of `agent` a new call stores. */
export function agentCopy(agent: AgentSnapshot): AgentCopy {
  const { prompt: _runWithHashAndVersion, ...copy } = agent;
  return copy;
}

export interface CallRow {
  id: string;
  account_id: string;
  agent_id: string;
  agent_snapshot: AgentCopy;
  campaign_id: string | null;
  phone_number: string;
  source_number: string;
  metadata: Record<string, unknown> | null;
  status: CallStatus;
  sequence: number;
  created_at: Date;
  started_at: Date;
  /** When the carrier got it; null while it waits in the dial queue. */
  dialed_at: Date | null;
  answered_at: Date | null;
  ended_at: Date | null;
  duration_seconds: number;
  transcript: Call['transcript'];
  /** Null until the call ended; the record reads it as neutral (rows from before it was always set, too). */
  sentiment: Call['sentiment'] | null;
  call_summary: string | null;
  call_end_reason: Call['call_end_reason'];
  ended_by: Call['ended_by'];
  details_collection: Call['details_collection'];
  ai_cost: string;
  telephony_cost: string;
  total_cost: string;
  prompt_version_id: string | null;
  prompt_hash: string;
  /** The instance driving the call (its lease is in call.instances); null once ended or released. */
  owner: string | null;
  carrier: Carrier;
  trunk_id: string | null;
  /** The final SIP response to the call's INVITE, once there is one. */
  sip_code: number | null;
  sip_reason: string | null;
  /**
   * Whether the network kept a recording (a SIP call's, in the recording store); null for the
   * simulated carrier, which synthesises one on request for any call that connected.
   */
  recorded: boolean | null;
  /** The person called asked not to be called again (false until the call ended). */
  opted_out: boolean;
}

/**
 * The columns a call's API record shows, as a list reads them: not the driver's (owner, sequence,
 * dialed_at, recorded), and of the agent copy (its flows, goal, voice, ...) only the two fields
 * the record names.
 */
export const RECORD_COLUMNS = [
  'id',
  'account_id',
  'agent_id',
  'campaign_id',
  'phone_number',
  'source_number',
  'metadata',
  'status',
  'created_at',
  'started_at',
  'answered_at',
  'ended_at',
  'duration_seconds',
  'transcript',
  'sentiment',
  'call_summary',
  'call_end_reason',
  'ended_by',
  'details_collection',
  'ai_cost',
  'telephony_cost',
  'total_cost',
  'prompt_version_id',
  'prompt_hash',
  'carrier',
  'trunk_id',
  'sip_code',
  'sip_reason',
  'opted_out',
] as const satisfies readonly (keyof CallRow)[];

/** What `toCall` reads: the record's columns and the agent's name and type. A full row is one. */
export type CallRecordRow = Pick<CallRow, (typeof RECORD_COLUMNS)[number]> & {
  agent_snapshot: Pick<AgentCopy, 'name' | 'agent_type'>;
};

/**
 * The API's call record. Its `recording_url` is empty: a link is signed by whoever serves the
 * record (the gateway, the webhook sender), fresh on every read.
 */
export function toCall(row: CallRecordRow): Call {
  return {
    id: row.id,
    session_id: row.id,
    status: row.status,
    phone_number: row.phone_number,
    source_number: row.source_number,
    direction: 'outbound',
    agent: { id: row.agent_id, name: row.agent_snapshot.name },
    agent_id: row.agent_id,
    agent_type: row.agent_snapshot.agent_type,
    user_id: row.account_id,
    campaign_id: row.campaign_id,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at.toISOString(),
    answered_at: row.answered_at?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? null,
    duration: row.duration_seconds,
    duration_seconds: row.duration_seconds,
    duration_minutes: Math.round((row.duration_seconds / 60) * 100) / 100,
    transcript: row.transcript,
    recording_url: '',
    sentiment: row.sentiment ?? 'neutral',
    call_summary: row.call_summary,
    call_end_reason: row.call_end_reason,
    ended_by: row.ended_by,
    details_collection: row.details_collection,
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
