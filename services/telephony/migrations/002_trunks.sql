-- SIP trunks per account. Every row carries its account: every query filters on it.
CREATE TABLE telephony.trunks (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  name text NOT NULL,
  uri text NOT NULL,
  username text,
  -- Kept as given: digest authentication (401/407) hashes the password itself into each answer,
  -- so it cannot be stored as a one-way hash. Never returned by the API, never logged.
  password text,
  is_default boolean NOT NULL DEFAULT false,
  max_concurrent_calls integer CHECK (max_concurrent_calls > 0),
  calls_per_second double precision CHECK (calls_per_second > 0),
  ring_timeout_seconds integer NOT NULL DEFAULT 30,
  codecs text[] NOT NULL,
  -- Calls-per-second pacing: the earliest time the next call may start through this trunk.
  next_dial_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (password IS NULL OR username IS NOT NULL)
);
CREATE INDEX trunks_account_created_idx ON telephony.trunks (account_id, created_at DESC, id);
-- One default trunk per account.
CREATE UNIQUE INDEX trunks_one_default_idx ON telephony.trunks (account_id) WHERE is_default;

-- The caller ids a trunk may present, in the order given. A number belongs to at most one trunk
-- of an account, so routing by source number is one index lookup and never ambiguous.
CREATE TABLE telephony.trunk_numbers (
  account_id uuid NOT NULL,
  number text NOT NULL,
  trunk_id uuid NOT NULL REFERENCES telephony.trunks (id) ON DELETE CASCADE,
  position integer NOT NULL,
  PRIMARY KEY (account_id, number)
);
CREATE INDEX trunk_numbers_trunk_idx ON telephony.trunk_numbers (trunk_id, position);

-- Calls a trunk carries now, counted against its max_concurrent_calls by every instance alike.
-- A row is added when a call is admitted and removed when it ends; `instance` lets a restarted
-- instance drop the rows of the calls it held.
CREATE TABLE telephony.trunk_calls (
  call_id uuid PRIMARY KEY,
  trunk_id uuid NOT NULL REFERENCES telephony.trunks (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  instance text NOT NULL,
  admitted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trunk_calls_trunk_idx ON telephony.trunk_calls (trunk_id);
CREATE INDEX trunk_calls_instance_idx ON telephony.trunk_calls (instance);
