-- A campaign's calling window (CallingWindow, shared/src/contracts/calling-window.ts); null = any time.
ALTER TABLE campaign.campaigns ADD COLUMN calling_window jsonb;
-- Due pending contacts, found without reading the ones waiting for a later time (a retry, or a
-- calling window's next opening): a window can send most of a 100,000-contact list to wait at
-- once, and contacts_state_idx would then read every waiting one on every claim. Contacts never
-- deferred, in position order; and waiting ones, by when they come due.
CREATE INDEX contacts_fresh_idx ON campaign.contacts (campaign_id, position)
  WHERE state = 'pending' AND next_attempt_at IS NULL;
CREATE INDEX contacts_waiting_idx ON campaign.contacts (campaign_id, next_attempt_at)
  WHERE state = 'pending' AND next_attempt_at IS NOT NULL;
