-- The campaign list filtered by status, newest first, read by keyset (created_at, id) at any depth:
-- the unfiltered list has campaigns_account_created_idx. The contacts' lists already have theirs:
-- the primary key (campaign_id, position) and contacts_state_idx (campaign_id, state, position).
CREATE INDEX campaigns_account_status_created_idx
  ON campaign.campaigns (account_id, status, created_at DESC, id DESC)
  WHERE status <> 'draft';

ALTER TABLE campaign.campaigns
  -- Why the campaign stopped on its own, for clients: set when its preparation failed (it is then
  -- cancelled, nothing dialed). Null otherwise.
  ADD COLUMN failure_reason text,
  -- Steps of its preparation in a row that failed with an error a retry would meet again (not a
  -- lost connection or a deadlock): past a bound, the preparation has failed.
  ADD COLUMN preparation_failures integer NOT NULL DEFAULT 0;
