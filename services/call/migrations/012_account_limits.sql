-- Each account's concurrent-call limit, as the gateway (which owns accounts) last pushed it: its
-- effective number, the plan default resolved. An account without a row is held to the free plan's
-- default until its row arrives. `updated_at` is the gateway's time of the change: a push older
-- than the stored one changes nothing, so pushes may arrive in any order and be repeated.
CREATE TABLE call.account_limits (
  account_id uuid PRIMARY KEY,
  max_concurrent_calls integer NOT NULL CHECK (max_concurrent_calls > 0),
  updated_at timestamptz NOT NULL
);

-- An account's live calls by whether they were dialed: the dial queue counts the dialed ones under
-- the account's lock before it dials more (NULLs sort last, so `dialed_at IS NOT NULL` is a range),
-- and GET /v1/me counts both. Ended calls are not in it, whatever an account's history.
-- Live is written as "not final" here, unlike calls_live_idx's `status IN (...)`, so that only
-- queries written the same way can use this index and those queries cannot use calls_live_idx:
-- with statistics taken before a burst both look empty to the planner, which then may walk every
-- live call of every account through calls_live_idx to count one account's.
-- Marking a call dialed now changes an indexed column, so it is no longer a HOT update: one more
-- index write per call, at most CALL_DIALS_PER_SECOND a second per instance, for a count that
-- reads only the account's live calls.
CREATE INDEX calls_account_live_idx ON call.calls (account_id, dialed_at)
  WHERE status NOT IN ('completed', 'no_answer', 'failed', 'voicemail', 'busy');
