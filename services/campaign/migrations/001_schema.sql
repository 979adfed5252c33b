-- The campaign service owns this schema: campaigns, their contacts and dialing state.
-- No other service reads or writes these tables; they reach this data over the bus.
COMMENT ON SCHEMA campaign IS 'Owned by the campaign service: campaigns, their contacts and dialing state.';
