import { z } from 'zod';
import { DateTime, E164, JsonObject, PageQuery, Uuid } from './common';

export const CONTACTS_MAX = 100_000;
export const MAX_CONCURRENT_CALLS_MAX = 50;

export const CAMPAIGN_STATUSES = ['scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const RETRYABLE_STATUSES = ['no_answer', 'busy', 'voicemail', 'failed'] as const;

export const RetryConfig = z
  .object({
    on_statuses: z.array(z.enum(RETRYABLE_STATUSES)).min(1).default(['no_answer', 'busy']),
    max_retries: z.number().int().min(0).max(5).default(0),
    interval_seconds: z.number().int().min(1).max(86_400).default(300),
  })
  .meta({ id: 'RetryConfig' });
export type RetryConfig = z.infer<typeof RetryConfig>;

export const CampaignCounts = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  in_progress: z.number().int(),
  completed: z.number().int(),
  no_answer: z.number().int(),
  failed: z.number().int(),
  voicemail: z.number().int(),
  busy: z.number().int(),
  skipped: z.number().int(),
  cancelled: z.number().int(),
});
export type CampaignCounts = z.infer<typeof CampaignCounts>;

export const Campaign = z
  .object({
    id: Uuid,
    name: z.string(),
    agent_id: Uuid,
    phone_number: E164,
    phone_column: z.string(),
    max_concurrent_calls: z.number().int(),
    retry_config: RetryConfig.nullable(),
    status: CampaignStatus,
    counts: CampaignCounts,
    start_at: DateTime.nullable(),
    created_at: DateTime,
    started_at: DateTime.nullable(),
    finished_at: DateTime.nullable(),
  })
  .meta({ id: 'Campaign' });
export type Campaign = z.infer<typeof Campaign>;

/** A contact row: flat, so each value is a scalar. Size is bounded by the body limit. */
export const ContactRow = z.record(
  z.string().max(100),
  z.union([z.string().max(1_000), z.number(), z.boolean(), z.null()]),
);

export const CreateCampaignBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    agent_id: Uuid,
    phone_number: E164,
    phone_column: z.string().min(1).max(100).default('phone'),
    contacts: z.array(ContactRow).min(1).max(CONTACTS_MAX),
    max_concurrent_calls: z.number().int().min(1).max(MAX_CONCURRENT_CALLS_MAX).default(1),
    retry_config: RetryConfig.optional(),
    start_at: z.iso.datetime({ offset: true }).optional(),
  })
  .meta({ id: 'CreateCampaign' });
export type CreateCampaignBody = z.infer<typeof CreateCampaignBody>;

export const CONTACT_STATES = [
  'pending',
  'in_progress',
  'completed',
  'no_answer',
  'failed',
  'voicemail',
  'busy',
  'skipped',
  'cancelled',
] as const;
export const ContactState = z.enum(CONTACT_STATES);

export const CampaignContact = z
  .object({
    id: Uuid,
    campaign_id: Uuid,
    position: z.number().int(),
    phone_number: z.string().nullable(),
    data: JsonObject,
    state: ContactState,
    attempts: z.number().int(),
    call_ids: z.array(Uuid),
    skip_reason: z.string().nullable(),
    next_attempt_at: DateTime.nullable(),
    updated_at: DateTime,
  })
  .meta({ id: 'CampaignContact' });

export const ListCampaignsQuery = PageQuery.extend({ status: CampaignStatus.optional() });
export const ListContactsQuery = PageQuery.extend({ status: ContactState.optional() });
