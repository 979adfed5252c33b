-- The webhook service owns this schema: webhook deliveries and their attempts.
-- No other service reads or writes these tables; they reach this data over the bus.
COMMENT ON SCHEMA webhook IS 'Owned by the webhook service: webhook deliveries and their attempts.';
