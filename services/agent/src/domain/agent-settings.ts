import type { ValidationIssue, Voice } from '@voice/shared/contracts';
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

const baseOf = (code: string): string => code.split('-')[0] ?? code;

/**
 * Whether a voice speaks a language (codes as the catalogue writes them). It does when it lists the
 * exact code; or lists the bare base code (a voice listing `es` speaks `es-MX`); or the language is
 * bare and the voice lists any region of it (an `es-MX` voice speaks `es`). A region never stands in
 * for another region: a `pt-BR` voice does not speak `pt-PT`.
 */
export function speaks(voiceLanguages: readonly string[], language: string): boolean {
  const base = baseOf(language);
  const bare = base === language;
  return voiceLanguages.some((code) => code === language || code === base || (bare && baseOf(code) === base));
}

/**
 * The voice an agent gets when none is chosen: the catalogue default if it lists the exact code;
 * else the first voice listing the exact code (a native regional voice before a multilingual one
 * that only knows the base language); else the first voice that speaks it by `speaks`' rules.
 */
export function defaultVoiceFor(language: string): Voice | undefined {
  const preferred = catalogue.defaultVoice();
  if (preferred.languages.includes(language)) return preferred;
  const voices = catalogue.listVoices();
  return (
    voices.find((voice) => voice.languages.includes(language)) ??
    voices.find((voice) => speaks(voice.languages, language))
  );
}

function agentTypeIssue(id: string): ValidationIssue | undefined {
  if (catalogue.findAgentType(id)) return undefined;
  return issue('agent_type', `unknown agent type '${id}'; see GET /v1/industries/{industry}/agent-types`);
}

function languageIssue(code: string): ValidationIssue | undefined {
  if (catalogue.findLanguage(code)) return undefined;
  return issue('language', `unsupported language '${code}'; see GET /v1/voices/languages`);
}

function modelIssue(id: string): ValidationIssue | undefined {
  if (catalogue.findModel(id)) return undefined;
  return issue('ai_model', `unknown AI model '${id}'; see GET /v1/ai-models`);
}

/** An unknown voice; or, when the language is known too, a voice that does not speak it. */
function voiceIssue(id: string, language: string | undefined): ValidationIssue | undefined {
  const voice = catalogue.findVoice(id);
  if (!voice) return issue('voice', `unknown voice '${id}'; see GET /v1/voices`);
  const known = language === undefined ? undefined : catalogue.findLanguage(language);
  if (known && !speaks(voice.languages, known.code)) {
    return issue('voice', `voice '${id}' does not speak '${known.code}'; see GET /v1/voices`);
  }
  return undefined;
}

/** The voice to keep or pick, before it is checked. */
function chooseVoice(
  requested: RequestedSettings,
  current: ResolvedSettings | undefined,
  language: string,
): string | undefined {
  if (requested.voice !== undefined) return requested.voice;
  const known = catalogue.findLanguage(language);
  if (!current) return known ? defaultVoiceFor(known.code)?.id : undefined;
  // Neither voice nor language asked for: the current voice stays as it is.
  if (requested.language === undefined || !known) return current.voice;
  // A new language without a voice: keep the current voice if it speaks it, else the default for it.
  const voice = catalogue.findVoice(current.voice);
  if (voice && speaks(voice.languages, known.code)) return current.voice;
  return defaultVoiceFor(known.code)?.id;
}

/**
 * Validates requested catalogue values against the catalogue, falling back on the agent's current
 * values (update) or the catalogue defaults (create). Every bad field is reported, not just the first.
 * On update a new language without a voice moves an agent whose voice does not speak it to the
 * default voice of that language; a voice the client sends must speak the language (422).
 */
export function resolveSettings(requested: RequestedSettings, current?: ResolvedSettings): SettingsResult {
  const agentTypeId = requested.agent_type ?? current?.agent_type ?? 'custom';
  const language = requested.language ?? current?.language ?? 'en';
  const voiceId = chooseVoice(requested, current, language);
  const aiModel = requested.ai_model ?? current?.ai_model ?? catalogue.defaultModel().id;
  // Unchanged values are not re-judged against the language (a PATCH of the name alone never fails
  // on a voice the client did not touch).
  const judgeVoice = !current || requested.voice !== undefined || requested.language !== undefined;
  const issues = [
    agentTypeIssue(agentTypeId),
    languageIssue(language),
    voiceId === undefined
      ? catalogue.findLanguage(language)
        ? issue('voice', `no voice speaks '${language}'`)
        : undefined
      : voiceIssue(voiceId, judgeVoice ? language : undefined),
    modelIssue(aiModel),
  ].filter((found) => found !== undefined);
  const agentType = catalogue.findAgentType(agentTypeId);
  const knownLanguage = catalogue.findLanguage(language);
  const voice = voiceId === undefined ? undefined : catalogue.findVoice(voiceId);
  if (issues.length > 0 || !agentType || !knownLanguage || !voice) return { ok: false, issues };
  return {
    ok: true,
    settings: {
      agent_type: agentType.id,
      industry: agentType.industry,
      language: knownLanguage.code,
      voice: voice.id,
      ai_model: aiModel,
    },
  };
}

/**
 * The problems of requested values alone, for a body that failed its schema. `create` judges them as
 * a create would (defaults filled in); `update` judges only what was sent, and the voice against the
 * language only when both were sent (the agent's current values are not looked up).
 */
export function settingsIssues(requested: RequestedSettings, mode: 'create' | 'update'): ValidationIssue[] {
  if (mode === 'create') {
    const result = resolveSettings(requested);
    return result.ok ? [] : result.issues;
  }
  const { agent_type, language, voice, ai_model } = requested;
  return [
    agent_type === undefined ? undefined : agentTypeIssue(agent_type),
    language === undefined ? undefined : languageIssue(language),
    voice === undefined ? undefined : voiceIssue(voice, language),
    ai_model === undefined ? undefined : modelIssue(ai_model),
  ].filter((found) => found !== undefined);
}
