-- Every filter of the call list has an index in the list's own order (created_at DESC, id DESC), so
-- a page, filtered or not, first or after a cursor, reads about page_size index entries however
-- long the account's history is: the account's own index serves the unfiltered list and the date
-- range (from/to on created_at). Before, the agent and campaign indexes lacked id (ties on
-- created_at were sorted in memory, and a cursor's (created_at, id) bound was not an index bound)
-- and a status filter walked the whole account's history for a rare status.
-- Calls change status in place, but status is already in the live index's predicate, so those
-- updates were never HOT: the status index adds one index entry per transition, no lost HOT update.
DROP INDEX call.calls_account_agent_idx;
CREATE INDEX calls_account_agent_idx ON call.calls (account_id, agent_id, created_at DESC, id DESC);
DROP INDEX call.calls_account_campaign_idx;
CREATE INDEX calls_account_campaign_idx ON call.calls (account_id, campaign_id, created_at DESC, id DESC)
  WHERE campaign_id IS NOT NULL;
CREATE INDEX calls_account_status_idx ON call.calls (account_id, status, created_at DESC, id DESC);
