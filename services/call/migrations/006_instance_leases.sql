-- One lease per call-service instance instead of one per call. Each instance renewed the lease of
-- every call it held, waiting ones included, every lease/3 seconds: a new version of every such
-- row (about 2 KB of WAL each) and a dead one for VACUUM, thousands a tick behind a burst of POSTs.
-- Now an instance renews its own row here, and a live call is its driver's for as long as that
-- row's lease holds. Instances of the previous version renew `calls.lease_until`, which is gone:
-- stop them before starting this version (the calls they held are taken over as orphans).
CREATE TABLE call.instances (
  id text PRIMARY KEY,
  lease_until timestamptz NOT NULL
);
-- Drivers of calls still live, with the leases they last had, so they are not taken over early.
INSERT INTO call.instances (id, lease_until)
SELECT owner, max(lease_until) FROM call.calls
WHERE owner IS NOT NULL AND lease_until IS NOT NULL AND status IN ('initializing', 'ringing', 'in_progress')
GROUP BY owner;
-- Live calls by driver, oldest first: the keeper finds the calls of a lapsed instance, and whether a
-- gone instance still holds any, without reading ended calls. `owner` changes only when a call
-- changes hands, so marking a call dialed stays a HOT update.
DROP INDEX call.calls_live_idx;
CREATE INDEX calls_live_idx ON call.calls (owner, started_at)
  WHERE status IN ('initializing', 'ringing', 'in_progress');
ALTER TABLE call.calls DROP COLUMN lease_until;
