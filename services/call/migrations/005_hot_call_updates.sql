-- Updates of a call row that change no indexed column can be HOT (no new index entries, the old
-- version pruned from its page without VACUUM): marking a call dialed and renewing the leases of
-- every call an instance drives (every waiting call, every 10 s) are such updates once the live
-- index is keyed on started_at, which never changes, instead of lease_until, which they set.
-- The keeper's orphan claim reads live calls in started_at order anyway.
-- Free room in each page for those new versions (new pages only; existing ones fill as they are).
DROP INDEX call.calls_live_idx;
CREATE INDEX calls_live_idx ON call.calls (started_at)
  WHERE status IN ('initializing', 'ringing', 'in_progress');
ALTER TABLE call.calls SET (fillfactor = 80);
