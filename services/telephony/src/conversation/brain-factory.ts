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
