import { z } from 'zod';
import { DateTime, Uuid, ValidationIssueSchema } from './common';
import { AgentTypeId, CollectedDetail, IndustryId, LanguageCode } from './discovery';
import { nameText, readableText } from './text';

export const WEBHOOK_EVENT_KINDS = ['CALL_ENDED'] as const;
export const WebhookEventKind = z.enum(WEBHOOK_EVENT_KINDS);
export type WebhookEventKind = z.infer<typeof WebhookEventKind>;

/** A URL that parses but names another scheme (ftp:, file:, ...): the one problem with its own message. */
function hasOtherScheme(input: unknown): boolean {
  if (typeof input !== 'string' || !URL.canParse(input)) return false;
  return !/^https?:$/.test(new URL(input).protocol);
}

/** Missing, null, malformed or too long keep zod's own messages; only a wrong scheme says so. */
export const WebhookUrl = z
  .url({
    protocol: /^https?$/,
    error: (issue) =>
      issue.code === 'invalid_format' && hasOtherScheme(issue.input)
        ? 'must be an http or https URL'
        : undefined,
  })
  .max(2048);

export const WebhookConfigInput = z
  .object({
    url: WebhookUrl,
    /** Repeats are dropped when stored. */
    events: z.array(WebhookEventKind).min(1).max(10).default(['CALL_ENDED']),
    /** Omitted on update: keep the current secret (it cannot be read back); `null`: remove it. */
    secret: z
      .string()
      .min(1, 'must not be empty')
      .max(256)
      .nullable()
      .optional()
      .describe(
        'Signs each delivery (X-Service-Signature: hex HMAC-SHA256 of the raw body). Any non-empty string of up ' +
          'to 256 characters; use 32 or more random characters. Omitted on update: the current secret is kept; ' +
          '`null`: removed.',
      ),
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

const Name = nameText(100);
/** Spoken lines: tab and line feed allowed, no other control character. */
const Flow = readableText(z.string().trim().min(1).max(FLOW_MAX), '\t\n');
const Description = z.string().max(2_000);
/** Pasted documents: carriage returns too. */
const PromptText = readableText(z.string().trim().min(1).max(PROMPT_MAX), '\t\n\r');

export const CreateAgentBody = z
  .object({
    name: Name,
    agent_type: AgentTypeId.default('custom'),
    language: LanguageCode.default('en'),
    voice: z.string().min(1).max(64).optional(),
    ai_model: z.string().min(1).max(64).optional(),
    start_flow: Flow,
    end_flow: Flow,
    description: Description.nullable().optional(),
    prompt: PromptText.optional(),
    webhook_config: WebhookConfigInput.nullable().optional(),
  })
  .meta({ id: 'CreateAgent' });
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

export const UpdateAgentBody = z
  .object({
    name: Name,
    agent_type: AgentTypeId,
    language: LanguageCode,
    voice: z.string().min(1).max(64),
    ai_model: z.string().min(1).max(64),
    start_flow: Flow,
    end_flow: Flow,
    description: Description.nullable(),
    /** A custom prompt; `null` goes back to the generated one. */
    prompt: PromptText.nullable(),
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
  instructions: PromptText,
});

export const PromptVersion = z
  .object({
    id: Uuid,
    agent_id: Uuid,
    version: z.number().int(),
    label: z.string().nullable(),
    prompt: z.string(),
    /** What the prompt was when saved; restoring the version restores this too. */
    prompt_source: PromptSource,
    is_active: z.boolean(),
    created_at: DateTime,
  })
  .meta({ id: 'PromptVersion' });
export type PromptVersion = z.infer<typeof PromptVersion>;

export const SavePromptVersionBody = z.object({
  label: nameText(100).optional(),
});

export const PromptVersionStatus = z
  .object({
    agent_id: Uuid,
    active_version_id: Uuid.nullable(),
    current_differs_from_active: z.boolean(),
    count: z.number().int(),
  })
  .meta({ id: 'PromptVersionStatus' });

/** Longest value check_settings looks at; longer ones already fail the body schema. */
export const CHECK_SETTINGS_MAX = 256;
const Loose = z.string().max(CHECK_SETTINGS_MAX).optional();

/**
 * Internal (gateway to agent service): the catalogue values and webhook URL of a request body that
 * failed its schema, as sent (loose strings, unvalidated), so one 422 can list the catalogue and
 * address problems next to the schema's. `create` checks as a create would (defaults filled in);
 * `update` checks only what was sent, and voice against language only when both were sent.
 */
export const CheckAgentSettingsRequest = z.object({
  mode: z.enum(['create', 'update']),
  agent_type: Loose,
  language: Loose,
  voice: Loose,
  ai_model: Loose,
  webhook_url: z.string().max(2048).optional(),
});
export type CheckAgentSettingsRequest = z.infer<typeof CheckAgentSettingsRequest>;
/** One issue per problem, `loc` starting with `body`: ready to merge into a 422. */
export const CheckAgentSettingsReply = z.array(ValidationIssueSchema);

/**
 * What a call needs to know of its agent at dial time (internal: served on the bus only). The call
 * keeps this copy, so a later edit or delete of the agent never changes a call's history.
 */
export const AgentSnapshot = z.object({
  id: Uuid,
  name: z.string(),
  agent_type: z.string(),
  industry: z.string().nullable(),
  goal: z.string(),
  collects: z.array(CollectedDetail),
  language: z.string(),
  voice: z.string(),
  ai_model: z.string(),
  start_flow: z.string(),
  end_flow: z.string(),
  prompt: z.string(),
  prompt_hash: z.string(),
  /** The active version when the current prompt is exactly that version's, else null. */
  prompt_version_id: Uuid.nullable(),
});
export type AgentSnapshot = z.infer<typeof AgentSnapshot>;
