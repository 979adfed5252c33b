-- 'preparing': started, its contacts still being checked for duplicates, a bounded batch at a time,
-- by the background loop (a start never does work that grows with the list); then scheduled or running.
ALTER TABLE campaign.campaigns
  DROP CONSTRAINT campaigns_status_check,
  ADD CONSTRAINT campaigns_status_check CHECK (status IN ('draft', 'preparing', 'scheduled', 'running',
    'paused', 'completed', 'cancelled')),
  -- Contacts below this position have been checked for duplicates.
  ADD COLUMN prepared_through integer NOT NULL DEFAULT 0;
DROP INDEX campaign.campaigns_active_idx;
CREATE INDEX campaigns_active_idx ON campaign.campaigns (status, start_at)
  WHERE status IN ('draft', 'preparing', 'scheduled', 'running');
-- While a campaign prepares: each dialable number seen so far, at its first position. A later
-- occurrence is a duplicate, found by its insert's conflict on the key: an index lookup by
-- construction, whatever plan the statistics (or their absence, on a table that just grew) suggest.
-- Emptied once the campaign leaves preparing.
CREATE TABLE campaign.contact_numbers (
  campaign_id uuid NOT NULL REFERENCES campaign.campaigns (id) ON DELETE CASCADE,
  phone_number text NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (campaign_id, phone_number)
);
