-- Idempotency-Key records (decisions.md, "States"): per account, kept 24 hours.
CREATE TABLE gateway.idempotency_keys (
  account_id uuid NOT NULL,
  key text NOT NULL,
  -- sha256 of method, path and canonical body: the same key with another request is a 409.
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON gateway.idempotency_keys (created_at);
