import { z } from 'zod';
import { DateTime, Uuid } from './common';
import { AgentTypeId, IndustryId, LanguageCode } from './discovery';

export const WEBHOOK_EVENT_KINDS = ['CALL_ENDED'] as const;
export const WebhookEventKind = z.enum(WEBHOOK_EVENT_KINDS);
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

export const WebhookUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

export const WebhookConfigInput = z
  .object({
    url: WebhookUrl,
    events: z.array(WebhookEventKind).min(1).default(['CALL_ENDED']),
    /** Omitted on update: keep the current secret (it cannot be read back); `null`: remove it. */
    secret: z.string().min(16, 'must be at least 16 characters').max(256).nullable().optional(),
  })
  .meta({ id: 'WebhookConfigUpdate' });
export type WebhookConfigInput = z.infer<typeof WebhookConfigInput>;

/** As returned: the secret itself never leaves the service. */
export const WebhookConfig = z
  .object({
    url: z.string(),
    events: z.array(WebhookEventKind),
    has_secret: z.boolean(),
  })
  .meta({ id: 'WebhookConfig' });
export type WebhookConfig = z.infer<typeof WebhookConfig>;

export const PromptSource = z.enum(['generated', 'custom']);

const PROMPT_MAX = 32_000;
const FLOW_MAX = 2_000;

export const Agent = z
  .object({
    id: Uuid,
    name: z.string(),
    agent_type: AgentTypeId,
    industry: IndustryId.nullable(),
    language: LanguageCode,
    voice: z.string(),
    ai_model: z.string(),
    start_flow: z.string(),
    end_flow: z.string(),
    description: z.string().nullable(),
    prompt: z.string(),
    prompt_source: PromptSource,
    active_prompt_version_id: Uuid.nullable(),
    webhook_config: WebhookConfig.nullable(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Agent' });
export type Agent = z.infer<typeof Agent>;

export const CreateAgentBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    agent_type: AgentTypeId.default('custom'),
    language: LanguageCode.default('en'),
    voice: z.string().min(1).max(64).optional(),
    ai_model: z.string().min(1).max(64).optional(),
    start_flow: z.string().trim().min(1).max(FLOW_MAX),
    end_flow: z.string().trim().min(1).max(FLOW_MAX),
    description: z.string().max(2_000).optional(),
    prompt: z.string().trim().min(1).max(PROMPT_MAX).optional(),
    webhook_config: WebhookConfigInput.nullable().optional(),
  })
  .meta({ id: 'CreateAgent' });
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

export const UpdateAgentBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    agent_type: AgentTypeId,
    language: LanguageCode,
    voice: z.string().min(1).max(64),
    ai_model: z.string().min(1).max(64),
    start_flow: z.string().trim().min(1).max(FLOW_MAX),
    end_flow: z.string().trim().min(1).max(FLOW_MAX),
    description: z.string().max(2_000).nullable(),
    /** A custom prompt; `null` goes back to the generated one. */
    prompt: z.string().trim().min(1).max(PROMPT_MAX).nullable(),
    /** `null` removes the webhook. */
    webhook_config: WebhookConfigInput.nullable(),
  })
  .partial()
  .meta({ id: 'UpdateAgent' });
export type UpdateAgentBody = z.infer<typeof UpdateAgentBody>;

export const AgentPrompt = z
  .object({
    agent_id: Uuid,
    prompt: z.string(),
    prompt_source: PromptSource,
    active_prompt_version_id: Uuid.nullable(),
  })
  .meta({ id: 'AgentPrompt' });

export const SaveInstructionsBody = z.object({
  instructions: z.string().trim().min(1).max(PROMPT_MAX),
});

export const PromptVersion = z
  .object({
    id: Uuid,
    agent_id: Uuid,
    version: z.number().int(),
    label: z.string().nullable(),
    prompt: z.string(),
    is_active: z.boolean(),
    created_at: DateTime,
  })
  .meta({ id: 'PromptVersion' });
export type PromptVersion = z.infer<typeof PromptVersion>;

export const SavePromptVersionBody = z.object({
  label: z.string().trim().min(1).max(100).optional(),
});

export const PromptVersionStatus = z
  .object({
    agent_id: Uuid,
    active_version_id: Uuid.nullable(),
    current_differs_from_active: z.boolean(),
    count: z.number().int(),
  })
  .meta({ id: 'PromptVersionStatus' });
