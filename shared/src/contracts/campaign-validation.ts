import { z } from 'zod';
import { CampaignSettings, CONTACTS_MAX, ContactRow } from './campaign';
import { DateTime } from './common';
import { rpc } from './rpc-contract';

/** Rows shown per problem kind: enough to spot a pattern, bounded whatever the list. */
export const VALIDATION_SAMPLE_ROWS = 10;
/** The average call length an ETA assumes when the agent has no ended calls yet. */
export const DEFAULT_CALL_SECONDS = 60;
/** How many of the agent's latest ended calls the average is taken over. */
export const CALL_STATS_SAMPLE = 100;

export const VALIDATION_PROBLEMS = ['missing_phone', 'invalid_phone', 'duplicate', 'do_not_call'] as const;
export type ValidationProblem = (typeof VALIDATION_PROBLEMS)[number];

export const ValidationCounts = z
  .object({
    total: z.number().int().describe('Contacts submitted'),
    valid: z
      .number()
      .int()
      .describe('Contacts that would be dialed: a usable number, not a repeat, not on the do-not-call list'),
    invalid: z.number().int().describe('missing_phone + invalid_phone'),
    missing_phone: z.number().int().describe('No value (absent, null or blank) under phone_column'),
    invalid_phone: z.number().int().describe('A value under phone_column that is not an E.164 string'),
    duplicate: z.number().int().describe('A usable number that appeared earlier in the list (dialed once)'),
    do_not_call: z
      .number()
      .int()
      .describe('Numbers (counted once each) on the account\u2019s do-not-call list now'),
  })
  .meta({ id: 'ValidationCounts', description: 'What a create would make of each contact' });
export type ValidationCounts = z.infer<typeof ValidationCounts>;

export const ValidationRow = z
  .object({
    position: z.number().int().describe('Index of the contact in the submitted list, from 0'),
    value: z.string().nullable().describe('The phone_column value as text (trimmed; null when missing)'),
  })
  .meta({ id: 'ValidationRow', description: 'One contact a create would skip' });
export type ValidationRow = z.infer<typeof ValidationRow>;

const rows = (what: string) =>
  z.array(ValidationRow).max(VALIDATION_SAMPLE_ROWS).describe(`The first (by position) ${what}`);

export const ValidationProblemRows = z
  .object({
    missing_phone: rows('contacts without a number'),
    invalid_phone: rows('contacts whose number is not E.164'),
    duplicate: rows('repeats of a number earlier in the list'),
    do_not_call: rows('contacts whose number is on the do-not-call list'),
  })
  .meta({
    id: 'ValidationProblemRows',
    description: `Up to ${VALIDATION_SAMPLE_ROWS} rows of each kind a create would skip`,
  });
export type ValidationProblemRows = z.infer<typeof ValidationProblemRows>;

export const ValidationZone = z
  .object({
    zone: z
      .string()
      .describe(
        'The zone, or for a number whose prefix spans several, its zones joined by "," (called only while the window is open in all of them)',
      ),
    zones: z.array(z.string()).describe('The same zones as a list'),
    contacts: z.number().int().describe('Contacts that would be dialed in it'),
    sources: z
      .object({
        contact: z.number().int().describe('Zones from the contact\u2019s own `timezone` key'),
        number: z.number().int().describe('Zones inferred from the number (country and area code)'),
        campaign: z.number().int().describe('The calling window\u2019s one zone for every contact'),
        fallback: z
          .number()
          .int()
          .describe('The fallback zone: the number named no zone, or its zones never share a window'),
      })
      .describe(
        'How many of them got the zone from their `timezone` key (contact), their number, the campaign\u2019s zone or the fallback zone',
      ),
  })
  .meta({ id: 'ValidationZone', description: 'The valid contacts of one time zone (or zone set)' });
export type ValidationZone = z.infer<typeof ValidationZone>;

export const CALL_LENGTH_SOURCES = ['agent_history', 'default'] as const;

export const ValidationEta = z
  .object({
    eta_seconds: z
      .number()
      .int()
      .nullable()
      .describe(
        'Seconds from starts_at until the last first attempt ends; null past the model\u2019s horizon',
      ),
    estimated_completion_at: DateTime.nullable().describe('starts_at + eta_seconds'),
    starts_at: DateTime.describe('When calling would begin: start_at, or now'),
    max_concurrent_calls: z
      .number()
      .int()
      .describe(
        'The cap the estimate runs at: the campaign\u2019s max_concurrent_calls, or the account\u2019s limit on calls at once when that is lower',
      ),
    account_max_concurrent_calls: z
      .number()
      .int()
      .describe(
        'The account\u2019s limit on calls dialed at once (shared with its other calls and campaigns)',
      ),
    avg_call_seconds: z.number().describe('The length assumed for each call, ringing included'),
    avg_call_source: z
      .enum(CALL_LENGTH_SOURCES)
      .describe(
        `agent_history: the mean of the agent\u2019s last ${CALL_STATS_SAMPLE} ended calls (dialed to ended); default: ${DEFAULT_CALL_SECONDS} s, the agent has none`,
      ),
    agent_calls_sampled: z.number().int().describe('How many ended calls the average was taken over'),
    retries_counted: z
      .boolean()
      .describe('Always false: retries are not counted, each valid contact is assumed to take one call'),
    calling_window: z.boolean().describe('Whether the estimate waited for the contacts\u2019 windows'),
  })
  .meta({
    id: 'ValidationEta',
    description:
      'How long the campaign would take: calls run cap at a time, each for the average length, a contact only while its window is open',
  });
export type ValidationEta = z.infer<typeof ValidationEta>;

export const CampaignValidation = z
  .object({
    counts: ValidationCounts,
    problems: ValidationProblemRows,
    time_zones: z
      .array(ValidationZone)
      .describe(
        'The valid contacts per time zone, most first. Without a calling_window, zones are reported as if its timezone were `recipient` (fallback UTC)',
      ),
    eta: ValidationEta,
  })
  .meta({
    id: 'CampaignValidation',
    description:
      'A dry run of a create: what it would dial, skip and how long it would take; nothing created',
  });
export type CampaignValidation = z.infer<typeof CampaignValidation>;

/** Internal: the gateway's subject the campaign service fetches a validation's contacts from. */
export const VALIDATION_SOURCE_PREFIX = 'campaign.validate_source';
export const ValidationSourceSubject = z
  .string()
  .regex(/^campaign\.validate_source\.[0-9a-f]{32}$/, 'must be a validation source subject');

/**
 * Internal: a validation as the campaign service takes it. The contacts do not travel in the
 * request (it would outgrow a bus message): the service fetches them from `source`, which the
 * gateway answers for the request's lifetime (one large reply, sent in parts by the bus).
 */
export const ValidateCampaignRequest = z.object({
  settings: CampaignSettings,
  source: ValidationSourceSubject,
  total: z.number().int().min(1).max(CONTACTS_MAX),
});
export const ValidationSourceReply = z.object({ contacts: z.array(ContactRow).min(1).max(CONTACTS_MAX) });
/** The contract of one validation's source subject (answered by the gateway, asked once). */
export const validationSource = (subject: string) => rpc(subject, z.object({}), ValidationSourceReply);

/** Internal: how long the agent's latest ended calls lasted, from dial to end. */
export const AgentCallStats = z.object({
  calls: z.number().int().describe('Ended calls the mean was taken over (at most CALL_STATS_SAMPLE)'),
  mean_seconds: z.number().nullable().describe('Their mean length; null without any'),
});
export type AgentCallStats = z.infer<typeof AgentCallStats>;
