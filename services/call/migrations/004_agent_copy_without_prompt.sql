-- A call keeps the agent fields it was dialed with, not the prompt text: the prompt it ran with is
-- recorded by prompt_hash and prompt_version_id, and the text (about 10 kB) made every read and
-- write of a call row carry it.
UPDATE call.calls SET agent_snapshot = agent_snapshot - 'prompt' WHERE agent_snapshot ? 'prompt';
