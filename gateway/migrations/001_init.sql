-- Accounts and their API keys: the gateway owns authentication.
CREATE TABLE gateway.accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
  -- NULL means "the plan's default"; enterprise accounts always carry their own number.
  rate_limit_per_minute integer CHECK (rate_limit_per_minute > 0),
  is_development boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE gateway.api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES gateway.accounts (id) ON DELETE CASCADE,
  name text,
  -- The first characters of the key, for people to recognise it; never enough to use it.
  prefix text NOT NULL,
  -- sha256 of the whole key: the key itself is never stored.
  key_hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_account_idx ON gateway.api_keys (account_id, created_at);

-- Fixed one-minute windows; shared by every gateway instance. Unlogged: losing counts in a
-- database crash only resets the current minute, and writes stay cheap.
CREATE UNLOGGED TABLE gateway.rate_limit_windows (
  bucket text NOT NULL,
  window_start bigint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
