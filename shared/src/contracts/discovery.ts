import { z } from 'zod';

export const IndustryId = z.string().regex(/^[a-z][a-z0-9_]{1,63}$/);

export const Industry = z
  .object({
    id: IndustryId,
    name: z.string(),
    description: z.string(),
    agent_type_count: z.number().int(),
  })
  .meta({ id: 'Industry' });
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
    name: z.string().regex(/^[a-z][a-z0-9_]*$/),
    type: DetailFieldType,
    description: z.string(),
    required: z.boolean(),
    options: z.array(z.string()).optional(),
  })
  .meta({ id: 'CollectedDetail' });
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
    id: AgentTypeId,
    name: z.string(),
    description: z.string(),
    category: z.enum(['general', 'industry']),
    industry: IndustryId.nullable(),
    goal: z.string(),
    collects: z.array(CollectedDetail),
  })
  .meta({ id: 'AgentType' });
export type AgentType = z.infer<typeof AgentType>;

export const LanguageCode = z.string().regex(/^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2}|-\d{3})?$/);

export const Language = z
  .object({
    code: LanguageCode,
    name: z.string(),
    native_name: z.string(),
  })
  .meta({ id: 'Language' });
export type Language = z.infer<typeof Language>;

export const Voice = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9_-]{1,63}$/),
    name: z.string(),
    gender: z.enum(['female', 'male', 'neutral']),
    accent: z.string(),
    languages: z.array(LanguageCode).min(1),
    provider: z.string(),
    default: z.boolean(),
  })
  .meta({ id: 'Voice' });
export type Voice = z.infer<typeof Voice>;

export const AiModel = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{1,63}$/),
    name: z.string(),
    provider: z.string(),
    description: z.string(),
    default: z.boolean(),
  })
  .meta({ id: 'AiModel' });
export type AiModel = z.infer<typeof AiModel>;

export const AgentTypesRequest = z.object({
  /** An industry id, or its display name (case-insensitive) as the spec allows URL-encoded names. */
  industry: z.string().min(1).max(200),
});
