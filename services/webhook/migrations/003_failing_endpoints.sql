-- One row per agent whose webhook endpoint is failing: its latest finished delivery failed (after
-- every attempt). A later delivery that succeeds removes the row. The webhook_endpoints_failing
-- gauge counts these rows; the consecutive count drives the "endpoint failing" log line.
CREATE TABLE webhook.failing_endpoints (
  account_id        text NOT NULL,
  agent_id          uuid NOT NULL,
  -- Deliveries that failed in a row since the endpoint last succeeded.
  failed_deliveries integer NOT NULL,
  -- When the first of them failed: where a bulk redelivery's range starts.
  failing_since     timestamptz NOT NULL,
  last_failed_at    timestamptz NOT NULL,
  PRIMARY KEY (account_id, agent_id)
);

-- The gauge counts endpoints that failed recently.
CREATE INDEX failing_endpoints_recent_idx ON webhook.failing_endpoints (last_failed_at);
