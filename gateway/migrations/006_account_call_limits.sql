-- An account's concurrent-call limit (NULL: its plan's default), which the call service enforces.
-- The call service keeps its own copy, pushed over the bus on every change: `call_limit_synced` is
-- false until the push of the change made at `call_limit_changed_at` was confirmed, and the gateway
-- pushes unconfirmed ones at start and until they are (existing accounts are pushed once).
ALTER TABLE gateway.accounts
  ADD COLUMN max_concurrent_calls integer CHECK (max_concurrent_calls BETWEEN 1 AND 10000),
  ADD COLUMN call_limit_changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  ADD COLUMN call_limit_synced boolean NOT NULL DEFAULT false;
CREATE INDEX accounts_call_limit_unsynced_idx ON gateway.accounts (call_limit_changed_at)
  WHERE NOT call_limit_synced;
