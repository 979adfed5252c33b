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

export function decidePrompt(
  requested: string | null | undefined,
  currentSource: 'generated' | 'custom' | undefined,
  currentPrompt: string | undefined,
  inputs: PromptInputs,
): PromptDecision {
  if (typeof requested === 'string') return { prompt: requested, prompt_source: 'custom' };
  if (requested === undefined && currentSource === 'custom' && currentPrompt !== undefined) {
    return { prompt: currentPrompt, prompt_source: 'custom' };
  }
  return { prompt: generatedPromptFor(inputs), prompt_source: 'generated' };
}
