import type { ValidationIssue } from '@voice/shared';
import * as catalogue from './catalogue/index';

/** The catalogue-backed settings of an agent, as requested (undefined = keep or default). */
export interface RequestedSettings {
  agent_type?: string | undefined;
  language?: string | undefined;
  voice?: string | undefined;
  ai_model?: string | undefined;
}

export interface ResolvedSettings {
  agent_type: string;
  industry: string | null;
  language: string;
  voice: string;
  ai_model: string;
}

export type SettingsResult =
  | { ok: true; settings: ResolvedSettings }
  | { ok: false; issues: ValidationIssue[] };

const issue = (field: string, msg: string): ValidationIssue => ({
  loc: ['body', field],
  msg,
  type: 'catalogue',
});

/** A voice speaks a language when it lists it, or lists the same base language (es for es-MX). */
export function speaks(voiceLanguages: readonly string[], language: string): boolean {
  const base = language.split('-')[0];
  return voiceLanguages.some((code) => code === language || code.split('-')[0] === base);
}

function defaultVoiceFor(language: string): string | undefined {
  const preferred = catalogue.defaultVoice();
  if (speaks(preferred.languages, language)) return preferred.id;
  return catalogue.listVoices().find((voice) => speaks(voice.languages, language))?.id;
}

/**
 * Validates requested catalogue values against the catalogue, falling back on the agent's current
 * values (update) or the catalogue defaults (create). Every bad field is reported, not just the first.
 */
export function resolveSettings(requested: RequestedSettings, current?: ResolvedSettings): SettingsResult {
  const issues: ValidationIssue[] = [];
  const agentTypeId = requested.agent_type ?? current?.agent_type ?? 'custom';
  const agentType = catalogue.findAgentType(agentTypeId);
  if (!agentType) {
    issues.push(
      issue(
        'agent_type',
        `unknown agent type '${agentTypeId}'; see GET /v1/industries/{industry}/agent-types`,
      ),
    );
  }
  const language = requested.language ?? current?.language ?? 'en';
  if (!catalogue.findLanguage(language)) {
    issues.push(issue('language', `unsupported language '${language}'; see GET /v1/voices/languages`));
  }
  const voiceId = requested.voice ?? current?.voice ?? defaultVoiceFor(language);
  const voice = voiceId ? catalogue.findVoice(voiceId) : undefined;
  if (!voiceId) {
    issues.push(issue('voice', `no voice speaks '${language}'`));
  } else if (!voice) {
    issues.push(issue('voice', `unknown voice '${voiceId}'; see GET /v1/voices`));
  } else if (catalogue.findLanguage(language) && !speaks(voice.languages, language)) {
    issues.push(issue('voice', `voice '${voiceId}' does not speak '${language}'; see GET /v1/voices`));
  }
  const aiModel = requested.ai_model ?? current?.ai_model ?? catalogue.defaultModel().id;
  if (!catalogue.findModel(aiModel)) {
    issues.push(issue('ai_model', `unknown AI model '${aiModel}'; see GET /v1/ai-models`));
  }
  if (issues.length > 0 || !agentType || !voice) return { ok: false, issues };
  return {
    ok: true,
    settings: {
      agent_type: agentType.id,
      industry: agentType.industry,
      language: catalogue.findLanguage(language)!.code,
      voice: voice.id,
      ai_model: aiModel,
    },
  };
}
