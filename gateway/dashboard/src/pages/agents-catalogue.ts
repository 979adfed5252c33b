import { gql } from '../api';

export interface Industry {
  id: string;
  name: string;
}
export interface AgentType {
  id: string;
  name: string;
  category: string;
  industry: string | null;
}
export interface Voice {
  id: string;
  name: string;
  gender: string;
  accent: string;
  languages: string[];
  default: boolean;
}
export interface Language {
  code: string;
  name: string;
}
export interface AiModel {
  id: string;
  name: string;
  provider: string;
  default: boolean;
}
export interface Catalogue {
  industries: Industry[];
  voices: Voice[];
  languages: Language[];
  aiModels: AiModel[];
}

const CATALOGUE = `query AgentCatalogue {
  industries { id name }
  voices { id name gender accent languages default }
  languages { code name }
  aiModels { id name provider default }
}`;
const TYPES = `query AgentTypes($industry: String!) {
  agentTypes(industry: $industry) { id name category industry }
}`;

let cached: Promise<Catalogue> | undefined;

/** The discovery catalogue the agent form's choices come from; read once per page load (it is static). */
export function loadCatalogue(): Promise<Catalogue> {
  cached ??= gql<Catalogue>(CATALOGUE).catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/** An industry's own agent types, then the general ones. */
export async function loadAgentTypes(industry: string): Promise<AgentType[]> {
  return (await gql<{ agentTypes: AgentType[] }>(TYPES, { industry })).agentTypes;
}

const baseOf = (code: string): string => code.split('-')[0] ?? code;

/** Whether a voice speaks a language, by the agent service's rules (services/agent domain/agent-settings). */
export function speaks(voiceLanguages: readonly string[], language: string): boolean {
  const base = baseOf(language);
  const bare = base === language;
  return voiceLanguages.some((code) => code === language || code === base || (bare && baseOf(code) === base));
}
