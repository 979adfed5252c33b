-- One row per delivery of one event to one agent's webhook; attempts are logged separately.
CREATE TABLE webhook.deliveries (
  id              uuid PRIMARY KEY,
  account_id      text NOT NULL,
  agent_id        uuid NOT NULL,
  event_id        uuid NOT NULL,
  event           text NOT NULL,
  session_id      text NOT NULL,
  url             text NOT NULL,
  -- Kept to sign retries and redeliveries; never returned by any API.
  secret          text,
  -- The exact body sent on every attempt.
  payload         jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempt_count   integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  lease_until     timestamptz,
  redelivery_of   uuid REFERENCES webhook.deliveries (id),
  test            boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz
);

-- The due-claim query: unfinished deliveries by next attempt time.
CREATE INDEX deliveries_due_idx ON webhook.deliveries (next_attempt_at)
  WHERE status IN ('pending', 'delivering');
-- Listing per agent, newest first.
CREATE INDEX deliveries_agent_idx ON webhook.deliveries (account_id, agent_id, created_at DESC, id DESC);
CREATE INDEX deliveries_event_idx ON webhook.deliveries (event_id);

CREATE TABLE webhook.delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook.deliveries (id) ON DELETE CASCADE,
  attempt     integer NOT NULL,
  started_at  timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error       text,
  succeeded   boolean NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
