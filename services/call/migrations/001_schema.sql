-- The call service owns this schema: calls, their lifecycle and results.
-- No other service reads or writes these tables; they reach this data over the bus.
COMMENT ON SCHEMA call IS 'Owned by the call service: calls, their lifecycle and results.';
