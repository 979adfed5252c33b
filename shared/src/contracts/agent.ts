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
    url: WebhookUrl.describe('Where events are POSTed: an http or https URL'),
    events: z
      .array(WebhookEventKind)
      .min(1)
      .max(10)
      .default(['CALL_ENDED'])
      .describe('The events to send (repeats are dropped); CALL_ENDED when omitted'),
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
  .meta({ id: 'WebhookConfigUpdate', description: 'Where and how an agent\u2019s events are delivered' });
export type WebhookConfigInput = z.infer<typeof WebhookConfigInput>;

/** As returned: the secret itself never leaves the service. */
export const WebhookConfig = z
  .object({
    url: z.string().describe('Where events are POSTed'),
    events: z.array(WebhookEventKind).describe('The events sent there'),
    has_secret: z.boolean().describe('Whether deliveries are signed (the secret itself is never returned)'),
  })
  .meta({ id: 'WebhookConfig', description: 'An agent\u2019s webhook, as stored' });
export type WebhookConfig = z.infer<typeof WebhookConfig>;

export const PromptSource = z
  .enum(['generated', 'custom'])
  .describe('`generated`: built from the agent\u2019s settings; `custom`: written by you');

const PROMPT_MAX = 32_000;
const FLOW_MAX = 2_000;

export const Agent = z
  .object({
    id: Uuid.describe('The agent\u2019s id'),
    name: z.string().describe('Display name'),
    agent_type: AgentTypeId.describe('Its agent type (see the agent types of discovery)'),
    industry: IndustryId.nullable().describe('The industry of its agent type; null for a general type'),
    language: LanguageCode.describe('Language it speaks'),
    voice: z.string().describe('Voice it speaks with'),
    ai_model: z.string().describe('Model it runs on'),
    start_flow: z.string().describe('What it says first when a call is answered'),
    end_flow: z.string().describe('What it says before hanging up'),
    description: z.string().nullable().describe('Your notes on the agent; null without any'),
    prompt: z.string().describe('The instructions it follows on a call'),
    prompt_source: PromptSource,
    active_prompt_version_id: Uuid.nullable().describe(
      'The saved prompt version last saved or restored; null when none is',
    ),
    webhook_config: WebhookConfig.nullable().describe('Its webhook; null without one'),
    created_at: DateTime.describe('When it was created'),
    updated_at: DateTime.describe('When it last changed'),
  })
  .meta({ id: 'Agent', description: 'A voice agent: what it says, how it sounds and where its events go' });
export type Agent = z.infer<typeof Agent>;

const Name = nameText(100).describe('Display name');
/** Spoken lines: tab and line feed allowed, no other control character. */
const Flow = readableText(z.string().trim().min(1).max(FLOW_MAX), '\t\n');
const StartFlow = Flow.describe('What the agent says first when a call is answered');
const EndFlow = Flow.describe('What the agent says before hanging up');
const Description = z.string().max(2_000).describe('Your notes on the agent');
/** Pasted documents: carriage returns too. */
const PromptText = readableText(z.string().trim().min(1).max(PROMPT_MAX), '\t\n\r');
const AgentTypeChoice = AgentTypeId.describe('An agent type id from discovery');
const LanguageChoice = LanguageCode.describe('A language code from discovery');
const VoiceChoice = z.string().min(1).max(64).describe('A voice id from discovery that speaks the language');
const ModelChoice = z.string().min(1).max(64).describe('A model id from discovery');

export const CreateAgentBody = z
  .object({
    name: Name,
    agent_type: AgentTypeChoice.default('custom'),
    language: LanguageChoice.default('en'),
    voice: VoiceChoice.optional().describe(
      'A voice id from discovery; the language\u2019s default when omitted',
    ),
    ai_model: ModelChoice.optional().describe('A model id from discovery; the default model when omitted'),
    start_flow: StartFlow,
    end_flow: EndFlow,
    description: Description.nullable().optional(),
    prompt: PromptText.optional().describe(
      'A custom prompt; when omitted one is generated from the agent type and flows',
    ),
    webhook_config: WebhookConfigInput.nullable().optional().describe('Where its events are delivered'),
  })
  .meta({ id: 'CreateAgent', description: 'A new agent' });
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

export const UpdateAgentBody = z
  .object({
    name: Name,
    agent_type: AgentTypeChoice,
    language: LanguageChoice,
    voice: VoiceChoice,
    ai_model: ModelChoice,
    start_flow: StartFlow,
    end_flow: EndFlow,
    description: Description.nullable(),
    prompt: PromptText.nullable().describe('A custom prompt; `null` goes back to the generated one'),
    webhook_config: WebhookConfigInput.nullable().describe('Its webhook; `null` removes it'),
  })
  .partial()
  .meta({
    id: 'UpdateAgent',
    description:
      'Changes to an agent: omitted fields keep their value; `prompt: null` returns to the generated prompt; ' +
      '`webhook_config: null` removes the webhook',
  });
export type UpdateAgentBody = z.infer<typeof UpdateAgentBody>;

export const AgentPrompt = z
  .object({
    agent_id: Uuid.describe('The agent'),
    prompt: z.string().describe('The instructions the agent follows on a call'),
    prompt_source: PromptSource,
    active_prompt_version_id: Uuid.nullable().describe('The active prompt version; null when none is'),
  })
  .meta({ id: 'AgentPrompt', description: 'An agent\u2019s prompt and where it came from' });

export const SaveInstructionsBody = z.object({
  instructions: PromptText.describe('The new prompt: the agent follows it from its next call'),
});

export const PromptVersion = z
  .object({
    id: Uuid.describe('The version\u2019s id'),
    agent_id: Uuid.describe('The agent it belongs to'),
    version: z.number().int().describe('Its number, from 1, in the order saved'),
    label: z.string().nullable().describe('Your label for it; null without one'),
    prompt: z.string().describe('The prompt as saved'),
    prompt_source: PromptSource.describe(
      'What the prompt was when saved (`generated` or `custom`); restoring the version restores this too',
    ),
    is_active: z.boolean().describe('Whether it is the agent\u2019s active version'),
    created_at: DateTime.describe('When it was saved'),
  })
  .meta({ id: 'PromptVersion', description: 'A saved copy of an agent\u2019s prompt' });
export type PromptVersion = z.infer<typeof PromptVersion>;

export const SavePromptVersionBody = z.object({
  label: nameText(100).optional().describe('A label for the version, e.g. `before pricing change`'),
});

export const PromptVersionStatus = z
  .object({
    agent_id: Uuid.describe('The agent'),
    active_version_id: Uuid.nullable().describe('Its active prompt version; null when none is'),
    current_differs_from_active: z
      .boolean()
      .describe('Whether the current prompt differs from the active version\u2019s'),
    count: z.number().int().describe('How many versions it has'),
  })
  .meta({
    id: 'PromptVersionStatus',
    description: 'The active prompt version, whether the prompt changed since, and how many versions exist',
  });

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
