-- The agent service owns this schema: agents, prompts and prompt versions; the discovery catalogue is static data in code.
-- No other service reads or writes these tables; they reach this data over the bus.
COMMENT ON SCHEMA agent IS 'Owned by the agent service: agents, prompts and prompt versions; the discovery catalogue is static data in code.';
