-- When the carrier got the call. NULL while an accepted call waits for its turn to be dialed
-- (CALL_DIALS_PER_SECOND): the carrier's clock starts here, and the reaper counts from here, so
-- time spent waiting is never mistaken for a stuck call.
ALTER TABLE call.calls ADD COLUMN dialed_at timestamptz;
UPDATE call.calls SET dialed_at = started_at;
