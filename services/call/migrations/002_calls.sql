-- Calls: the record the API returns, the agent copy they were dialed with, and who drives them.
CREATE TABLE call.calls (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  agent_id uuid NOT NULL,
  -- The agent as it was at dial time: the carrier's input, and history that outlives the agent.
  agent_snapshot jsonb NOT NULL,
  campaign_id uuid,
  phone_number text NOT NULL,
  source_number text NOT NULL,
  metadata jsonb,
  status text NOT NULL CHECK (status IN ('initializing', 'ringing', 'in_progress',
    'completed', 'no_answer', 'failed', 'voicemail', 'busy')),
  -- Bumped by every transition; events carry it so consumers can drop stale ones.
  sequence integer NOT NULL DEFAULT 1,
  -- Milliseconds, as the API writes them, so an export cursor taken from a record is exact.
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  started_at timestamptz NOT NULL,
  answered_at timestamptz,
  ended_at timestamptz,
  duration_seconds integer NOT NULL DEFAULT 0,
  transcript jsonb NOT NULL DEFAULT '[]',
  sentiment text,
  call_summary text,
  call_end_reason text,
  ended_by text,
  details_collection jsonb,
  ai_cost numeric(12, 4) NOT NULL DEFAULT 0,
  telephony_cost numeric(12, 4) NOT NULL DEFAULT 0,
  total_cost numeric(12, 4) NOT NULL DEFAULT 0,
  prompt_version_id uuid,
  prompt_hash text NOT NULL,
  -- The instance driving the call and until when; another takes over once the lease lapses.
  owner text,
  lease_until timestamptz
);
CREATE INDEX calls_account_created_idx ON call.calls (account_id, created_at DESC, id DESC);
CREATE INDEX calls_account_agent_idx ON call.calls (account_id, agent_id, created_at DESC);
CREATE INDEX calls_account_campaign_idx ON call.calls (account_id, campaign_id, created_at DESC)
  WHERE campaign_id IS NOT NULL;
CREATE INDEX calls_live_idx ON call.calls (lease_until)
  WHERE status IN ('initializing', 'ringing', 'in_progress');

-- Every transition, in order: the call's own history.
CREATE TABLE call.call_transitions (
  call_id uuid NOT NULL REFERENCES call.calls (id) ON DELETE CASCADE,
  sequence integer NOT NULL,
  status text NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (call_id, sequence)
);
