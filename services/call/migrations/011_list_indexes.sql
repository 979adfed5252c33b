-- migrate: outside-transaction
-- migrate: applied-as 8e1929a0a4d00cd6839d03dfc33d23126b4db4cdd1675460dfa716b2bc7692f3
-- Every filter of the call list has an index in the list's own order (created_at DESC, id DESC), so
-- a page, filtered or not, first or after a cursor, reads about page_size index entries however
-- long the account's history is: the account's own index serves the unfiltered list and the date
-- range (from/to on created_at). Before, the agent and campaign indexes lacked id (ties on
-- created_at were sorted in memory, and a cursor's (created_at, id) bound was not an index bound)
-- and a status filter walked the whole account's history for a rare status.
-- Calls change status in place, but status is already in the live index's predicate, so those
-- updates were never HOT: the status index adds one index entry per transition, no lost HOT update.
--
-- Built concurrently (outside a transaction), so a long call history keeps taking writes while the
-- indexes are built: each changed index is built under a new name, the old one dropped, the new one
-- given the old name. The result is what the first text of this file (its checksum above) left, in
-- one transaction, on the databases that ran it; they do not run it again. Run again after a crash,
-- each step is done already or is done again (migrate-outside.ts drops an index left invalid).
CREATE INDEX CONCURRENTLY IF NOT EXISTS calls_account_agent_idx_011
  ON call.calls (account_id, agent_id, created_at DESC, id DESC);
DROP INDEX CONCURRENTLY IF EXISTS call.calls_account_agent_idx;
ALTER INDEX IF EXISTS call.calls_account_agent_idx_011 RENAME TO calls_account_agent_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS calls_account_campaign_idx_011
  ON call.calls (account_id, campaign_id, created_at DESC, id DESC) WHERE campaign_id IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS call.calls_account_campaign_idx;
ALTER INDEX IF EXISTS call.calls_account_campaign_idx_011 RENAME TO calls_account_campaign_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS calls_account_status_idx
  ON call.calls (account_id, status, created_at DESC, id DESC);
