import { z } from 'zod';
import { DateTime, E164, JsonObject, PageQuery, Uuid } from './common';
import { nameText } from './text';

export const CONTACTS_MAX = 100_000;
export const MAX_CONCURRENT_CALLS_MAX = 50;

/**
 * What clients see. `preparing`: created, its contacts still being checked (duplicates) in the
 * background; it becomes scheduled or running on its own. `draft` (a create still uploading its
 * contacts) is internal and never listed.
 */
export const CAMPAIGN_STATUSES = [
  'preparing',
  'scheduled',
  'running',
  'paused',
  'completed',
  'cancelled',
] as const;
export const CampaignStatus = z.enum(CAMPAIGN_STATUSES);
export type CampaignStatus = z.infer<typeof CampaignStatus>;

export const RETRYABLE_STATUSES = ['no_answer', 'busy', 'voicemail', 'failed'] as const;
export type RetryableStatus = (typeof RETRYABLE_STATUSES)[number];

export const RetryConfig = z
  .object({
    on_statuses: z
      .array(z.enum(RETRYABLE_STATUSES))
      .min(1)
      .max(RETRYABLE_STATUSES.length)
      .default(['no_answer', 'busy'])
      .describe('Call outcomes after which the contact is dialed again'),
    max_retries: z
      .number()
      .int()
      .min(0)
      .max(5)
      .default(0)
      .describe('Further attempts after the first: a contact is dialed at most 1 + max_retries times'),
    interval_seconds: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(300)
      .describe('Wait after a retryable outcome before the contact is dialed again'),
  })
  .meta({ id: 'RetryConfig' });
export type RetryConfig = z.infer<typeof RetryConfig>;

const SourceNumber = E164.meta({
  example: '+14155550100',
  description: 'Source number the calls are placed from (E.164)',
});

export const CampaignCounts = z
  .object({
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
  })
  .meta({ id: 'CampaignCounts' });
export type CampaignCounts = z.infer<typeof CampaignCounts>;

export const Campaign = z
  .object({
    id: Uuid,
    name: z.string(),
    agent_id: Uuid,
    phone_number: SourceNumber,
    phone_column: z.string(),
    max_concurrent_calls: z.number().int(),
    retry_config: RetryConfig.nullable(),
    status: CampaignStatus.describe(
      'preparing (a large list still being checked for duplicates; then scheduled or running on its own), scheduled, running, paused, completed or cancelled',
    ),
    counts: CampaignCounts.describe('Contacts per state; total = the contacts submitted'),
    start_at: DateTime.nullable(),
    created_at: DateTime,
    started_at: DateTime.nullable(),
    finished_at: DateTime.nullable(),
  })
  .meta({ id: 'Campaign' });
export type Campaign = z.infer<typeof Campaign>;

/** A contact row: flat, so each value is a scalar. Size is bounded by the body limit. */
/** A contact's keys reach its calls as metadata.contact, which must fit the calls' metadata bound. */
export const CONTACT_ROW_MAX_BYTES = 15 * 1024;
export const ContactRow = z
  .record(z.string().max(100), z.union([z.string().max(1_000), z.number(), z.boolean(), z.null()]))
  .refine(
    (row) => Buffer.byteLength(JSON.stringify(row)) <= CONTACT_ROW_MAX_BYTES,
    `must serialize to at most ${CONTACT_ROW_MAX_BYTES / 1024} KiB of JSON`,
  );
export type ContactRow = z.infer<typeof ContactRow>;

/** Everything of a create except the contacts: what the campaign service stores first (a draft). */
export const CampaignSettings = z.object({
  name: nameText(100),
  agent_id: Uuid,
  phone_number: SourceNumber,
  phone_column: z
    .string()
    .min(1)
    .max(100)
    .default('phone')
    .describe('The key of each contact that holds the number to dial'),
  max_concurrent_calls: z
    .number()
    .int()
    .min(1)
    .max(MAX_CONCURRENT_CALLS_MAX)
    .default(1)
    .describe('Most calls of this campaign that are not final at any moment'),
  retry_config: RetryConfig.optional(),
  start_at: DateTime.optional().describe('Start later: the campaign is scheduled until then'),
});
export type CampaignSettings = z.infer<typeof CampaignSettings>;

/** A time still ahead when the request is validated. */
const FutureDateTime = DateTime.refine((value) => Date.parse(value) > Date.now(), {
  message: 'must be in the future',
});

export const CreateCampaignBody = CampaignSettings.extend({
  contacts: z
    .array(ContactRow)
    .min(1)
    .max(CONTACTS_MAX)
    .describe(
      'Flat objects, each with the number under phone_column; the other keys reach the call as metadata.contact',
    ),
  start_at: FutureDateTime.optional().describe(
    'ISO 8601 with offset, in the future: the campaign is scheduled until then',
  ),
}).meta({ id: 'CreateCampaign' });
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
export type ContactState = z.infer<typeof ContactState>;

export const SKIP_REASONS = ['missing_phone', 'invalid_phone', 'duplicate'] as const;
export const SkipReason = z.enum(SKIP_REASONS);
export type SkipReason = z.infer<typeof SkipReason>;

export const CampaignContact = z
  .object({
    id: Uuid,
    campaign_id: Uuid,
    position: z.number().int().describe('Index of the contact in the submitted list, from 0'),
    phone_number: z.string().nullable().describe('The phone_column value as sent (null when missing)'),
    data: JsonObject.describe('The contact\u2019s other keys, sent to the agent as metadata.contact'),
    state: ContactState,
    attempts: z.number().int(),
    call_ids: z.array(Uuid).describe('Every call placed for this contact, oldest first'),
    skip_reason: SkipReason.nullable(),
    failure_reason: z
      .string()
      .nullable()
      .describe('Why the contact failed without a call outcome (e.g. its agent was deleted)'),
    next_attempt_at: DateTime.nullable().describe('When a retry is due (pending contacts only)'),
    updated_at: DateTime,
  })
  .meta({ id: 'CampaignContact' });
export type CampaignContact = z.infer<typeof CampaignContact>;

export const ListCampaignsQuery = PageQuery.extend({ status: CampaignStatus.optional() });
export const ListContactsQuery = PageQuery.extend({ status: ContactState.optional() });

/** Internal: one chunk of a create's contacts; `offset` is the position of its first contact. */
export const AddContactsRequest = z.object({
  campaign_id: Uuid,
  offset: z
    .number()
    .int()
    .min(0)
    .max(CONTACTS_MAX - 1),
  contacts: z.array(ContactRow).min(1).max(CONTACTS_MAX),
});

/** Internal: the last step of a create; `total` is how many contacts the chunks carried. */
export const StartCampaignRequest = z.object({
  campaign_id: Uuid,
  total: z.number().int().min(1).max(CONTACTS_MAX),
});
