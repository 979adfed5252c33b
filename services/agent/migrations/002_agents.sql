-- Agents and their prompt versions. Every row carries its account: every query filters on it.
CREATE TABLE agent.agents (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL,
  name text NOT NULL,
  agent_type text NOT NULL,
  industry text,
  language text NOT NULL,
  voice text NOT NULL,
  ai_model text NOT NULL,
  start_flow text NOT NULL,
  end_flow text NOT NULL,
  description text,
  prompt text NOT NULL,
  prompt_source text NOT NULL CHECK (prompt_source IN ('generated', 'custom')),
  active_prompt_version_id uuid,
  webhook_url text,
  webhook_events text[],
  -- Kept to sign deliveries; never returned by the API.
  webhook_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((webhook_url IS NULL) = (webhook_events IS NULL))
);
CREATE INDEX agents_account_created_idx ON agent.agents (account_id, created_at DESC, id);

-- Immutable snapshots of an agent's prompt.
CREATE TABLE agent.prompt_versions (
  id uuid PRIMARY KEY,
  agent_id uuid NOT NULL REFERENCES agent.agents (id) ON DELETE CASCADE,
  account_id uuid NOT NULL,
  version integer NOT NULL,
  label text,
  prompt text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (agent_id, version)
);

ALTER TABLE agent.agents
  ADD CONSTRAINT agents_active_version_fk FOREIGN KEY (active_prompt_version_id)
  REFERENCES agent.prompt_versions (id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;
