-- A contact whose number is on the account's do-not-call list when its turn to be dialed comes is
-- skipped (skip_reason 'do_not_call'), not failed: the call service refuses its placement.
ALTER TABLE campaign.contacts
  DROP CONSTRAINT contacts_skip_reason_check,
  ADD CONSTRAINT contacts_skip_reason_check
    CHECK (skip_reason IN ('missing_phone', 'invalid_phone', 'duplicate', 'do_not_call'));
