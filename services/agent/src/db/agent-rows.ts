import type { Agent, PromptVersion, WebhookEventKind } from '@voice/shared';

/** An agents row as stored (the secret included: it never leaves the service). */
export interface AgentRow {
  id: string;
  account_id: string;
  name: string;
  agent_type: string;
  industry: string | null;
  language: string;
  voice: string;
  ai_model: string;
  start_flow: string;
  end_flow: string;
  description: string | null;
  prompt: string;
  prompt_source: 'generated' | 'custom';
  active_prompt_version_id: string | null;
  /** The number the next saved prompt version gets; only ever grows, so numbers are never reused. */
  next_prompt_version: number;
  webhook_url: string | null;
  webhook_events: WebhookEventKind[] | null;
  webhook_secret: string | null;
  created_at: Date;
  updated_at: Date;
  /**
   * The transaction that wrote this version of the row (PostgreSQL's system column, as text):
   * differs between any two committed versions, so it tells an unchanged agent (AgentReplies).
   */
  xmin: string;
}

/** What tells one version of an agent's row from another: its writing transaction and updated_at. */
export type AgentRowVersion = Pick<AgentRow, 'xmin' | 'updated_at'>;

/** An agent as a list reads it: what the API shows, the secret only as whether there is one. */
export type AgentListRow = Omit<
  AgentRow,
  'account_id' | 'next_prompt_version' | 'webhook_secret' | 'xmin'
> & {
  has_webhook_secret: boolean;
};

export interface PromptVersionRow {
  id: string;
  agent_id: string;
  account_id: string;
  version: number;
  label: string | null;
  prompt: string;
  prompt_source: 'generated' | 'custom';
  created_at: Date;
}

/** A prompt version as a list reads it: what the API shows. */
export type PromptVersionListRow = Omit<PromptVersionRow, 'account_id'>;

export function toAgent(row: AgentRow | AgentListRow): Agent {
  const hasSecret = 'has_webhook_secret' in row ? row.has_webhook_secret : row.webhook_secret !== null;
  return {
    id: row.id,
    name: row.name,
    agent_type: row.agent_type,
    industry: row.industry,
    language: row.language,
    voice: row.voice,
    ai_model: row.ai_model,
    start_flow: row.start_flow,
    end_flow: row.end_flow,
    description: row.description,
    prompt: row.prompt,
    prompt_source: row.prompt_source,
    active_prompt_version_id: row.active_prompt_version_id,
    webhook_config:
      row.webhook_url && row.webhook_events
        ? { url: row.webhook_url, events: row.webhook_events, has_secret: hasSecret }
        : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toPromptVersion(row: PromptVersionListRow, activeId: string | null): PromptVersion {
  return {
    id: row.id,
    agent_id: row.agent_id,
    version: row.version,
    label: row.label,
    prompt: row.prompt,
    prompt_source: row.prompt_source,
    is_active: row.id === activeId,
    created_at: row.created_at.toISOString(),
  };
}
