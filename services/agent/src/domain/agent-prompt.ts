import * as catalogue from './catalogue/index';
import { generatePrompt } from './prompt/index';

/** What the generated prompt is made from; a change to any of these regenerates it. */
export interface PromptInputs {
  agent_type: string;
  language: string;
  name: string;
  description: string | null;
  start_flow: string;
  end_flow: string;
}

export const PROMPT_INPUT_FIELDS = [
  'agent_type',
  'language',
  'name',
  'description',
  'start_flow',
  'end_flow',
] as const;

/** The generated prompt for already-validated settings (catalogue values are known to exist). */
export function generatedPromptFor(inputs: PromptInputs): string {
  const agentType = catalogue.findAgentType(inputs.agent_type);
  const material = catalogue.promptMaterial(inputs.agent_type);
  const language = catalogue.findLanguage(inputs.language);
  if (!agentType || !material || !language) {
    throw new Error(`prompt inputs not in the catalogue: ${inputs.agent_type}/${inputs.language}`);
  }
  return generatePrompt({
    agentType,
    material,
    language,
    name: inputs.name,
    description: inputs.description,
    startFlow: inputs.start_flow,
    endFlow: inputs.end_flow,
  });
}

/** A prompt the user wrote stays theirs; a generated one follows every change to its inputs. */
export type PromptDecision = { prompt: string; prompt_source: 'generated' | 'custom' };

/** The agent's prompt as stored, with the inputs it currently has. */
export interface CurrentPrompt extends PromptDecision {
  inputs: PromptInputs;
}

/**
 * The prompt after a create (`current` undefined) or an update. A supplied prompt is custom; `null`
 * (or none on create) is the generated one. Otherwise the current prompt stays, except that a
 * generated one is regenerated when one of its inputs changes value. A restored generated version
 * therefore stays exactly as restored until such a change (a voice or webhook edit keeps it).
 */
export function decidePrompt(
  requested: string | null | undefined,
  current: CurrentPrompt | undefined,
  inputs: PromptInputs,
): PromptDecision {
  if (typeof requested === 'string') return { prompt: requested, prompt_source: 'custom' };
  if (requested === undefined && current) {
    const unchanged = PROMPT_INPUT_FIELDS.every((field) => current.inputs[field] === inputs[field]);
    if (current.prompt_source === 'custom' || unchanged) {
      return { prompt: current.prompt, prompt_source: current.prompt_source };
    }
  }
  return { prompt: generatedPromptFor(inputs), prompt_source: 'generated' };
}
