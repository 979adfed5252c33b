import type { AiModel } from '@voice/shared/contracts';

/** Language models that can drive an agent's conversation. Exactly one is the default. */
export const MODELS: readonly AiModel[] = [
  {
    id: 'gpt-4o-mini',
    name: 'GPT-4o mini',
    provider: 'openai',
    description:
      'Fast and inexpensive with low first-token latency; a good fit for most scripted outbound calls.',
    default: true,
  },
  {
    id: 'gpt-4o',
    name: 'GPT-4o',
    provider: 'openai',
    description: 'Stronger reasoning and instruction following for complex, multi-step conversations.',
    default: false,
  },
  {
    id: 'claude-3-5-sonnet',
    name: 'Claude 3.5 Sonnet',
    provider: 'anthropic',
    description: 'Careful, natural conversation that follows long prompts and compliance rules closely.',
    default: false,
  },
  {
    id: 'claude-3-5-haiku',
    name: 'Claude 3.5 Haiku',
    provider: 'anthropic',
    description:
      'Anthropic’s fastest model; quick turn-taking for high-volume reminder and confirmation calls.',
    default: false,
  },
  {
    id: 'gemini-1.5-flash',
    name: 'Gemini 1.5 Flash',
    provider: 'google',
    description: 'Low latency and cost with strong multilingual ability for calls in many languages.',
    default: false,
  },
  {
    id: 'llama-3.1-70b',
    name: 'Llama 3.1 70B',
    provider: 'meta',
    description:
      'Open-weight model for businesses that prefer open models; capable on general conversations.',
    default: false,
  },
];
