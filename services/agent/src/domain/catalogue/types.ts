import type { Industry } from '@voice/shared/contracts';

/**
 * Material a prompt generator combines with the agent's language and the business context
 * to build a system prompt for one agent type.
 */
export interface AgentTypePromptMaterial {
  /** Who the agent is on the call, in one or two sentences, written in the second person. */
  persona: string;
  /** Concrete conversational rules (3-6), each one imperative sentence. */
  guidelines: string[];
}

/** Prompt material for a group of agent types, keyed by agent type id. */
export type PromptMaterialMap = Readonly<Record<string, AgentTypePromptMaterial>>;

/** An industry as written in the catalogue; `agent_type_count` is derived from the agent types. */
export type IndustryDefinition = Omit<Industry, 'agent_type_count'>;
