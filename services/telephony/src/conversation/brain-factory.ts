import { type BrainLog, LlmBrain } from './llm-brain';
import { RulesBrain } from './rules-brain';
import type { Brain } from './types';

// Which dialogue brain a deployment runs: the local rule brain (the default) or an OpenAI-compatible
// chat-completions endpoint.

export type BrainConfig =
  | { kind: 'rules'; maxOptionalDetails?: number }
  | {
      kind: 'llm';
      baseUrl: string;
      apiKey: string;
      /** Overrides the agents' ai_model. */
      model?: string;
      /** Longest wait for an answer's first token. */
      timeoutMs: number;
    };

export function createBrain(config: BrainConfig, log: BrainLog): Brain {
  switch (config.kind) {
    case 'rules':
      return new RulesBrain({ maxOptionalDetails: config.maxOptionalDetails });
    case 'llm':
      return new LlmBrain(
        { baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model, timeoutMs: config.timeoutMs },
        log,
      );
  }
}

/** Default wait for a first token: long enough for a hosted model, short enough for a phone call. */
export const DEFAULT_LLM_TIMEOUT_MS = 4000;

/**
 * The brain from the environment: `LLM_BASE_URL` (with `LLM_API_KEY`, optional `LLM_MODEL` and
 * `LLM_TIMEOUT_MS`) selects the LLM brain; without it the rule brain runs.
 */
export function brainConfigFromEnv(env: Readonly<Record<string, string | undefined>>): BrainConfig {
  const baseUrl = env.LLM_BASE_URL?.trim();
  if (!baseUrl) return { kind: 'rules' };
  const timeout = Number(env.LLM_TIMEOUT_MS);
  return {
    kind: 'llm',
    baseUrl,
    apiKey: env.LLM_API_KEY ?? '',
    model: env.LLM_MODEL?.trim() || undefined,
    timeoutMs:
      Number.isFinite(timeout) && timeout >= 100 && timeout <= 60_000 ? timeout : DEFAULT_LLM_TIMEOUT_MS,
  };
}
