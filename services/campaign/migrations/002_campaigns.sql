-- Campaigns: their settings, status and the counts last computed from their contacts.
CREATE TABLE campaign.campaigns (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  name text NOT NULL,
  agent_id uuid NOT NULL,
  phone_number text NOT NULL,
  phone_column text NOT NULL,
  max_concurrent_calls integer NOT NULL CHECK (max_concurrent_calls BETWEEN 1 AND 50),
  retry_config jsonb,
  -- 'draft': created, contacts still arriving in chunks; never listed, swept when abandoned.
  status text NOT NULL CHECK (status IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled')),
  -- Contacts per state, recomputed from the contacts in every transaction that changes them.
  counts jsonb NOT NULL DEFAULT '{}',
  -- Bumped with every progress event; events carry it so consumers can drop stale ones.
  sequence integer NOT NULL DEFAULT 0,
  start_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX campaigns_account_created_idx ON campaign.campaigns (account_id, created_at DESC, id DESC)
  WHERE status <> 'draft';
-- The dispatcher's work: running campaigns, scheduled ones due, abandoned drafts.
CREATE INDEX campaigns_active_idx ON campaign.campaigns (status, start_at)
  WHERE status IN ('draft', 'scheduled', 'running');

-- One row per submitted contact, in submission order (position). All writers of a campaign's
-- contacts hold its campaign row lock, which serializes them across replicas.
CREATE TABLE campaign.contacts (
  campaign_id uuid NOT NULL REFERENCES campaign.campaigns (id) ON DELETE CASCADE,
  position integer NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- The phone_column value as sent (text), null when missing.
  phone_number text,
  -- The contact's other keys: the call's metadata.contact.
  data jsonb NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'in_progress', 'completed', 'no_answer', 'failed',
    'voicemail', 'busy', 'skipped', 'cancelled')),
  skip_reason text CHECK (skip_reason IN ('missing_phone', 'invalid_phone', 'duplicate')),
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  call_ids uuid[] NOT NULL DEFAULT '{}',
  -- The call of the attempt in flight (chosen before placing, so a re-sent placement is the same call).
  current_call_id uuid,
  -- When the attempt was claimed, and when the call service confirmed its placement.
  dispatched_at timestamptz,
  placed_at timestamptz,
  next_attempt_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (campaign_id, position)
);
-- Counts (group by state), due pending contacts in position order, paging by state.
CREATE INDEX contacts_state_idx ON campaign.contacts (campaign_id, state, position);
-- A CALL_ENDED finds its contact by the call in flight.
CREATE INDEX contacts_in_flight_idx ON campaign.contacts (current_call_id) WHERE state = 'in_progress';
-- Placements not confirmed (a replica died between claim and placement): re-sent after a lease.
CREATE INDEX contacts_unplaced_idx ON campaign.contacts (dispatched_at)
  WHERE state = 'in_progress' AND placed_at IS NULL;
