-- When a contact's retry is due by its retry_config's backoff, kept beside next_attempt_at, which a
-- calling window may push later (to its next opening). A PATCH of the window judges waiting contacts
-- again from retry_at (null: never dialed, no backoff), so the backoff is never shortened.
ALTER TABLE campaign.contacts ADD COLUMN retry_at timestamptz;
-- Retries waiting before this column existed: their current time is the earliest known (it may be
-- an old window's opening; judging them again never makes them earlier than that).
UPDATE campaign.contacts SET retry_at = next_attempt_at
 WHERE state = 'pending' AND attempts > 0 AND next_attempt_at IS NOT NULL;
