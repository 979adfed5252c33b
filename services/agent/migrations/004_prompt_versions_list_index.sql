-- The prompt-version list pages by cursor (newest version first) and counts up to 10,001 versions:
-- with both scoping columns and the version in one index, both are index (only) scans, where the
-- (agent_id, version) key alone left account_id to each row of the table.
CREATE INDEX prompt_versions_account_agent_version_idx
  ON agent.prompt_versions (account_id, agent_id, version DESC);
