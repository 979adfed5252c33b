-- Account webhook endpoints: where an account's call and campaign events go, beside agents' own
-- webhooks. The secret signs deliveries; after a rotation the one it replaced keeps signing too
-- until previous_secret_expires_at.
CREATE TABLE webhook.endpoints (
  id                         uuid PRIMARY KEY,
  account_id                 text NOT NULL,
  url                        text NOT NULL,
  events                     text[] NOT NULL,
  description                text,
  enabled                    boolean NOT NULL DEFAULT true,
  secret                     text NOT NULL,
  previous_secret            text,
  previous_secret_expires_at timestamptz,
  secret_rotated_at          timestamptz,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);
-- Listing per account, newest first; and the fan-out of an event to the account's endpoints.
CREATE INDEX endpoints_account_idx ON webhook.endpoints (account_id, created_at DESC, id DESC);

-- A delivery goes to an agent's webhook (agent_id) or to an endpoint (endpoint_id), never both.
-- Deleting an endpoint deletes its deliveries: nothing more is sent there, and its log is gone with it.
ALTER TABLE webhook.deliveries
  ALTER COLUMN agent_id DROP NOT NULL,
  ALTER COLUMN session_id DROP NOT NULL,
  ADD COLUMN endpoint_id uuid REFERENCES webhook.endpoints (id) ON DELETE CASCADE,
  ADD CONSTRAINT deliveries_one_target CHECK ((agent_id IS NULL) <> (endpoint_id IS NULL));
-- An endpoint's log, newest first.
CREATE INDEX deliveries_endpoint_idx ON webhook.deliveries (endpoint_id, created_at DESC, id DESC)
  WHERE endpoint_id IS NOT NULL;
