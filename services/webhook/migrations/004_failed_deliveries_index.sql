-- Bulk redelivery scans an agent's failed deliveries by creation time.
CREATE INDEX deliveries_failed_idx ON webhook.deliveries (account_id, agent_id, created_at, id)
  WHERE status = 'failed';
