-- A delivery queued for an account endpoint that was disabled before it was sent ends 'cancelled':
-- terminal, never sent, kept in the endpoint's log (a redelivery sends its event again).
ALTER TABLE webhook.deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE webhook.deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'cancelled'));

-- One row per account endpoint that is failing, as failing_endpoints is per agent's webhook: its
-- latest finished delivery failed after every attempt. Deleting the endpoint removes the row.
CREATE TABLE webhook.failing_account_endpoints (
  endpoint_id       uuid PRIMARY KEY REFERENCES webhook.endpoints (id) ON DELETE CASCADE,
  account_id        text NOT NULL,
  failed_deliveries integer NOT NULL,
  failing_since     timestamptz NOT NULL,
  last_failed_at    timestamptz NOT NULL
);
CREATE INDEX failing_account_endpoints_recent_idx ON webhook.failing_account_endpoints (last_failed_at);

-- Bulk redelivery scans an endpoint's failed deliveries by creation time.
CREATE INDEX deliveries_endpoint_failed_idx ON webhook.deliveries (endpoint_id, created_at, id)
  WHERE status = 'failed' AND endpoint_id IS NOT NULL;
