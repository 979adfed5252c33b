import { z } from 'zod';
import { CallingWindow } from './calling-window';
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
  .meta({ id: 'RetryConfig', description: 'When and how often a contact is dialed again' });
export type RetryConfig = z.infer<typeof RetryConfig>;

const SourceNumber = E164.meta({
  example: '+14155550100',
  description: 'Source number the calls are placed from (E.164)',
});

export const CampaignCounts = z
  .object({
    total: z.number().int().describe('Contacts submitted'),
    pending: z.number().int().describe('Contacts waiting for a call (or a retry)'),
    in_progress: z.number().int().describe('Contacts on a call now'),
    completed: z.number().int().describe('Contacts whose last call completed'),
    no_answer: z.number().int().describe('Contacts whose last call was not answered'),
    failed: z.number().int().describe('Contacts whose last call failed, or that failed without a call'),
    voicemail: z.number().int().describe('Contacts whose last call reached voicemail'),
    busy: z.number().int().describe('Contacts whose last call was busy'),
    skipped: z.number().int().describe('Contacts never dialed (missing, invalid or duplicate number)'),
    cancelled: z.number().int().describe('Contacts not dialed because the campaign was cancelled'),
  })
  .meta({ id: 'CampaignCounts', description: 'A campaign\u2019s contacts by state' });
export type CampaignCounts = z.infer<typeof CampaignCounts>;

export const Campaign = z
  .object({
    id: Uuid.describe('The campaign\u2019s id'),
    name: z.string().describe('Display name'),
    agent_id: Uuid.describe('The agent that makes its calls'),
    phone_number: SourceNumber,
    phone_column: z.string().describe('The key of each contact that holds the number to dial'),
    max_concurrent_calls: z.number().int().describe('Most of its calls that are not final at any moment'),
    retry_config: RetryConfig.nullable().describe('Its retry rules; null when contacts are dialed once'),
    calling_window: CallingWindow.nullable().describe(
      'When its contacts may be called, in local time; null when at any time',
    ),
    status: CampaignStatus.describe(
      'preparing (a large list still being checked for duplicates; then scheduled or running on its own), scheduled, running, paused, completed or cancelled',
    ),
    counts: CampaignCounts.describe('Contacts per state; total = the contacts submitted'),
    start_at: DateTime.nullable().describe('When a scheduled campaign starts; null to start at once'),
    created_at: DateTime.describe('When it was created'),
    started_at: DateTime.nullable().describe('When it started calling; null until then'),
    finished_at: DateTime.nullable().describe('When it completed or was cancelled; null until then'),
    failure_reason: z
      .string()
      .optional()
      .describe(
        'Present only when the campaign stopped on its own: its preparation failed (status cancelled, nobody was dialed)',
      ),
  })
  .meta({ id: 'Campaign', description: 'A list of contacts an agent calls, a few at a time' });
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
  name: nameText(100).describe('Display name'),
  agent_id: Uuid.describe('The agent that makes its calls'),
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
  retry_config: RetryConfig.optional().describe('Retry rules; without them each contact is dialed once'),
  calling_window: CallingWindow.optional().describe(
    'When contacts may be called, in each recipient\u2019s local time (or one zone): a contact outside its window waits and is dialed when it opens, a retry too. Without it contacts are called at any time',
  ),
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
}).meta({ id: 'CreateCampaign', description: 'A new campaign and its contacts' });
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

/** `do_not_call`: the number is on the account's do-not-call list when the contact's turn to be dialed came. */
export const SKIP_REASONS = ['missing_phone', 'invalid_phone', 'duplicate', 'do_not_call'] as const;
export const SkipReason = z.enum(SKIP_REASONS);
export type SkipReason = z.infer<typeof SkipReason>;

export const CampaignContact = z
  .object({
    id: Uuid.describe('The contact\u2019s id'),
    campaign_id: Uuid.describe('Its campaign'),
    position: z.number().int().describe('Index of the contact in the submitted list, from 0'),
    phone_number: z.string().nullable().describe('The phone_column value as sent (null when missing)'),
    data: JsonObject.describe('The contact\u2019s other keys, sent to the agent as metadata.contact'),
    state: ContactState.describe('Where the contact is: waiting, on a call, or its final outcome'),
    attempts: z.number().int().describe('Calls placed for it so far'),
    call_ids: z.array(Uuid).describe('Every call placed for this contact, oldest first'),
    skip_reason: SkipReason.nullable().describe('Why it was skipped; null unless skipped'),
    failure_reason: z
      .string()
      .nullable()
      .describe('Why the contact failed without a call outcome (e.g. its agent was deleted)'),
    next_attempt_at: DateTime.nullable().describe(
      'When a pending contact is due again: its retry, or the next opening of its calling window',
    ),
    updated_at: DateTime.describe('When it last changed'),
  })
  .meta({ id: 'CampaignContact', description: 'One contact of a campaign and how calling it went' });
export type CampaignContact = z.infer<typeof CampaignContact>;

export const ListCampaignsQuery = PageQuery.extend({
  status: CampaignStatus.optional().describe('Only campaigns in this status'),
});
export const ListContactsQuery = PageQuery.extend({
  status: ContactState.optional().describe('Only contacts in this state'),
});

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

/**
 * Changes to a campaign while it is preparing, scheduled, running or paused: omitted fields keep
 * their value. Unknown keys are refused (a misspelt field must not read as "no change").
 */
export const UpdateCampaignBody = z
  .strictObject({
    name: nameText(100).describe('Display name'),
    max_concurrent_calls: z
      .number()
      .int()
      .min(1)
      .max(MAX_CONCURRENT_CALLS_MAX)
      .describe(
        'The new cap. Lowered: no call is cut, new dials wait until fewer are in flight; raised: more are dialed at once',
      ),
    retry_config: RetryConfig.nullable().describe(
      'Replaces the retry rules for outcomes from now on; `null` stops retrying. Retries already scheduled keep their time',
    ),
    calling_window: CallingWindow.nullable().describe(
      'Replaces the calling window (`null` removes it): contacts never dialed that wait for an opening are judged again at once; retries keep their time',
    ),
  })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, {
    message: 'must change at least one of name, max_concurrent_calls, retry_config, calling_window',
  })
  .meta({
    id: 'UpdateCampaign',
    description:
      'Changes to a campaign: omitted fields keep their value; `retry_config: null` stops retrying, `calling_window: null` removes the window',
  });
export type UpdateCampaignBody = z.infer<typeof UpdateCampaignBody>;

/** Internal: a PATCH as the campaign service takes it. */
export const UpdateCampaignRequest = z.object({ campaign_id: Uuid, changes: UpdateCampaignBody });

export const AddContactsBody = z
  .strictObject({
    contacts: z
      .array(ContactRow)
      .min(1)
      .max(CONTACTS_MAX)
      .describe(
        `Flat objects, each with the number under the campaign\u2019s phone_column; the campaign holds at most ${CONTACTS_MAX.toLocaleString('en')} contacts in all`,
      ),
  })
  .meta({ id: 'AddContacts', description: 'Contacts to add to a campaign that has not finished' });
export type AddContactsBody = z.infer<typeof AddContactsBody>;

export const ContactsAdded = z
  .object({
    received: z.number().int().describe('Contacts sent; each is stored, to be dialed or skipped'),
    added: z.number().int().describe('Contacts stored pending: they will be dialed'),
    skipped: z
      .object({
        missing_phone: z.number().int().describe('No number under phone_column'),
        invalid_phone: z.number().int().describe('A number that is not E.164'),
        duplicate: z.number().int().describe('A number already in the campaign, or earlier in this request'),
      })
      .meta({ id: 'SkippedContacts', description: 'Contacts stored as skipped, by reason' })
      .describe('Contacts stored as skipped, by reason'),
    campaign: Campaign.describe('The campaign with its counts after the addition'),
  })
  .meta({ id: 'ContactsAdded', description: 'What an addition of contacts stored' });
export type ContactsAdded = z.infer<typeof ContactsAdded>;

/**
 * Internal: one chunk of an addition to a started campaign, held apart (never dialed, never
 * listed) until the commit moves the whole addition into the campaign at once.
 */
export const StageContactsRequest = z.object({
  campaign_id: Uuid,
  addition_id: Uuid,
  offset: z
    .number()
    .int()
    .min(0)
    .max(CONTACTS_MAX - 1),
  contacts: z.array(ContactRow).min(1).max(CONTACTS_MAX),
});

/** Internal: the last step of an addition; `total` is how many contacts its chunks carried. */
export const CommitContactsRequest = z.object({
  campaign_id: Uuid,
  addition_id: Uuid,
  total: z.number().int().min(1).max(CONTACTS_MAX),
});
export const DiscardContactsRequest = z.object({ campaign_id: Uuid, addition_id: Uuid });
