-- Prompt version numbers are never reused: each agent counts the versions it has ever saved, and the
-- counter only grows (deleting the newest version no longer hands its number to the next save).
ALTER TABLE agent.agents ADD COLUMN next_prompt_version integer NOT NULL DEFAULT 1;
-- Existing agents continue after their highest surviving version (numbers freed before this
-- migration cannot be told apart any more).
UPDATE agent.agents a
SET next_prompt_version = coalesce((SELECT max(v.version) FROM agent.prompt_versions v WHERE v.agent_id = a.id), 0) + 1;

-- What each version's prompt was when saved (generated or custom); restoring a version restores it.
-- Versions saved before this migration are taken as custom: a restore pins them, as it used to.
ALTER TABLE agent.prompt_versions
  ADD COLUMN prompt_source text NOT NULL DEFAULT 'custom' CHECK (prompt_source IN ('generated', 'custom'));
