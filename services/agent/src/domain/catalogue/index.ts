/**
 * The discovery catalogue: industries, agent types, voices, languages and AI models, plus the
 * prompt material for each agent type. Pure and in-memory; every function returns a fresh copy,
 * so callers may mutate what they get without affecting the catalogue.
 */
import type { AgentType, AiModel, Industry, Language, Voice } from '@voice/shared/contracts';
import { GENERAL_TYPES, INDUSTRY_TYPES, PROMPT_MATERIAL } from './agent-types/index';
import { INDUSTRIES } from './industries';
import { LANGUAGES } from './languages';
import { MODELS } from './models';
import type { AgentTypePromptMaterial } from './types';
import { VOICES } from './voices';

export type { AgentTypePromptMaterial } from './types';

const copy = <T>(value: T): T => structuredClone(value);

const industries: readonly Industry[] = INDUSTRIES.map((industry) => ({
  ...industry,
  agent_type_count: INDUSTRY_TYPES.filter((type) => type.industry === industry.id).length,
}));
const industryById = new Map(industries.map((industry) => [industry.id, industry]));
const industryByName = new Map(industries.map((industry) => [normaliseName(industry.name), industry]));

const agentTypes: readonly AgentType[] = [...INDUSTRY_TYPES, ...GENERAL_TYPES];
const agentTypeById = new Map(agentTypes.map((type) => [type.id, type]));

const voiceById = new Map(VOICES.map((voice) => [voice.id, voice]));
const languageByCode = new Map(LANGUAGES.map((language) => [language.code.toLowerCase(), language]));
const modelById = new Map(MODELS.map((model) => [model.id, model]));

function normaliseName(name: string): string {
  return name.trim().toLowerCase();
}

/** Finds the single default entry; the catalogue's tests guarantee there is exactly one. */
function theDefault<T extends { default: boolean }>(entries: readonly T[], kind: string): T {
  const found = entries.find((entry) => entry.default);
  if (!found) throw new Error(`catalogue has no default ${kind}`);
  return found;
}

/** All industries, in display order, each with its number of industry-specific agent types. */
export function listIndustries(): Industry[] {
  return copy([...industries]);
}

/**
 * An industry by its id (exact), or by its display name ignoring case and surrounding whitespace,
 * so both `real_estate` and `Real Estate` (a decoded path parameter) find the same industry.
 */
export function findIndustry(idOrName: string): Industry | undefined {
  // Ids and names alike ignore case and surrounding space: `REAL_ESTATE` finds real_estate as
  // `REAL ESTATE` finds Real Estate.
  const key = normaliseName(idOrName);
  const found = industryById.get(key) ?? industryByName.get(key);
  return found && copy(found);
}

/** The industry's own agent types followed by the general ones; empty for an unknown industry id. */
export function listAgentTypes(industryId: string): AgentType[] {
  if (!industryById.has(industryId)) return [];
  return copy([...INDUSTRY_TYPES.filter((type) => type.industry === industryId), ...GENERAL_TYPES]);
}

/** Every agent type: all industry-specific types, then the general ones. */
export function listAllAgentTypes(): AgentType[] {
  return copy([...agentTypes]);
}

export function findAgentType(id: string): AgentType | undefined {
  const found = agentTypeById.get(id);
  return found && copy(found);
}

export function listVoices(): Voice[] {
  return copy([...VOICES]);
}

export function findVoice(id: string): Voice | undefined {
  const found = voiceById.get(id);
  return found && copy(found);
}

export function defaultVoice(): Voice {
  return copy(theDefault(VOICES, 'voice'));
}

/** Voices that list the language (code matched case-insensitively, no fallback from `en-GB` to `en`). */
export function voicesForLanguage(code: string): Voice[] {
  const language = languageByCode.get(code.toLowerCase());
  if (!language) return [];
  return copy(VOICES.filter((voice) => voice.languages.includes(language.code)));
}

export function listLanguages(): Language[] {
  return copy([...LANGUAGES]);
}

/** A language by its BCP-47 code; matched case-insensitively as BCP-47 tags are. */
export function findLanguage(code: string): Language | undefined {
  const found = languageByCode.get(code.toLowerCase());
  return found && copy(found);
}

export function listModels(): AiModel[] {
  return copy([...MODELS]);
}

export function findModel(id: string): AiModel | undefined {
  const found = modelById.get(id);
  return found && copy(found);
}

export function defaultModel(): AiModel {
  return copy(theDefault(MODELS, 'AI model'));
}

/** Persona and conversational guidelines for an agent type, for the prompt generator. */
export function promptMaterial(agentTypeId: string): AgentTypePromptMaterial | undefined {
  const found = Object.hasOwn(PROMPT_MATERIAL, agentTypeId) ? PROMPT_MATERIAL[agentTypeId] : undefined;
  return found && copy(found);
}

export const Catalogue = Object.freeze({
  listIndustries,
  findIndustry,
  listAgentTypes,
  listAllAgentTypes,
  findAgentType,
  listVoices,
  findVoice,
  defaultVoice,
  voicesForLanguage,
  listLanguages,
  findLanguage,
  listModels,
  findModel,
  defaultModel,
  promptMaterial,
});
