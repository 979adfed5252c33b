import { z } from 'zod';

export const IndustryId = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/);

export const Industry = z
  .object({
    id: IndustryId.describe('Industry id, e.g. `healthcare`'),
    name: z.string().describe('Display name'),
    description: z.string().describe('What the industry covers'),
    agent_type_count: z.number().int().describe('How many agent types belong to it'),
  })
  .meta({ id: 'Industry', description: 'An industry that groups specialised agent types' });
export type Industry = z.infer<typeof Industry>;

export const DetailFieldType = z.enum([
  'string',
  'number',
  'boolean',
  'date',
  'datetime',
  'phone',
  'email',
  'enum',
]);

/** One item an agent type tries to collect during a call (reported in details_collection). */
export const CollectedDetail = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .describe('Key of the value in details_collection.collected_values'),
    type: DetailFieldType.describe('Kind of value collected'),
    description: z.string().describe('What the agent asks for'),
    required: z.boolean().describe('Whether the collection is complete only with it'),
    options: z.array(z.string()).optional().describe('The allowed values of an `enum` detail'),
  })
  .meta({
    id: 'CollectedDetail',
    description: 'One item an agent type tries to collect during a call (reported in details_collection)',
  });
export type CollectedDetail = z.infer<typeof CollectedDetail>;

export const GENERAL_AGENT_TYPES = [
  'sales',
  'support',
  'cold_calling',
  'collection',
  'retention',
  'compliance',
  'appointment_booking',
  'custom',
] as const;
export const GeneralAgentTypeId = z.enum(GENERAL_AGENT_TYPES);

export const AgentTypeId = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/);

export const AgentType = z
  .object({
    id: AgentTypeId.describe('Agent type id, e.g. `sales`; an agent\u2019s agent_type'),
    name: z.string().describe('Display name'),
    description: z.string().describe('What agents of this type do'),
    category: z
      .enum(['general', 'industry'])
      .describe('`general`: for any industry; `industry`: specialised for one'),
    industry: IndustryId.nullable().describe('The industry of an `industry` type; null for a general one'),
    goal: z.string().describe('What a call of this type aims to achieve (part of the generated prompt)'),
    collects: z.array(CollectedDetail).describe('The details a call of this type tries to collect'),
  })
  .meta({ id: 'AgentType', description: 'A kind of agent: its goal and the details it collects' });
export type AgentType = z.infer<typeof AgentType>;

export const LanguageCode = z.string().regex(/^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2}|-\d{3})?$/);

export const Language = z
  .object({
    code: LanguageCode.describe('BCP 47 language tag, e.g. `en` or `pt-BR`'),
    name: z.string().describe('Name in English'),
    native_name: z.string().describe('Name in the language itself'),
  })
  .meta({ id: 'Language', description: 'A language an agent can speak' });
export type Language = z.infer<typeof Language>;

export const Voice = z
  .object({
    id: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{1,63}$/)
      .describe('Voice id: an agent\u2019s voice'),
    name: z.string().describe('Display name'),
    gender: z.enum(['female', 'male', 'neutral']).describe('How the voice sounds'),
    accent: z.string().describe('Accent, e.g. American'),
    languages: z.array(LanguageCode).min(1).describe('Languages the voice speaks'),
    provider: z.string().describe('Speech provider behind the voice'),
    default: z.boolean().describe('Whether an agent gets this voice when it names none'),
  })
  .meta({ id: 'Voice', description: 'A voice an agent can speak with' });
export type Voice = z.infer<typeof Voice>;

export const AiModel = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{1,63}$/)
      .describe('Model id: an agent\u2019s ai_model'),
    name: z.string().describe('Display name'),
    provider: z.string().describe('Who serves the model'),
    description: z.string().describe('What the model is suited for'),
    default: z.boolean().describe('Whether an agent runs on this model when it names none'),
  })
  .meta({ id: 'AiModel', description: 'A model an agent can run on (beyond the spec)' });
export type AiModel = z.infer<typeof AiModel>;

export const AgentTypesRequest = z.object({
  industry: z.string().min(1).max(200).describe('An industry id, or its display name (case-insensitive)'),
});
