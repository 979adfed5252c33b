import { z } from 'zod';
import { DateTime, E164, JsonObject, PageQuery, Uuid } from './common';

export const CALL_OUTCOMES = ['completed', 'no_answer', 'failed', 'voicemail', 'busy'] as const;
export const CallOutcome = z.enum(CALL_OUTCOMES);
export type CallOutcome = z.infer<typeof CallOutcome>;

export const CALL_STATUSES = ['initializing', 'ringing', 'in_progress', ...CALL_OUTCOMES] as const;
export const CallStatus = z.enum(CALL_STATUSES);
export type CallStatus = z.infer<typeof CallStatus>;

export const CALL_END_REASONS = [
  'conversation_completed',
  'customer_hung_up',
  'agent_hung_up',
  'no_answer',
  'busy',
  'voicemail_detected',
  'carrier_error',
  'invalid_number',
  'timeout',
  'cancelled',
] as const;
export const CallEndReason = z.enum(CALL_END_REASONS);

export const ENDED_BY = ['agent', 'user', 'system', 'carrier'] as const;
export const EndedBy = z.enum(ENDED_BY);

export const DETAILS_STATUSES = ['complete', 'partial', 'none'] as const;

export const Sentiment = z.enum(['positive', 'neutral', 'negative']);

export const TranscriptEntry = z
  .object({
    role: z.enum(['agent', 'user']),
    content: z.string(),
    timestamp: z.string().regex(/^\d{2}:\d{2}:\d{2}$/),
  })
  .meta({ id: 'TranscriptEntry' });

export const DetailsCollection = z
  .object({
    status: z.enum(DETAILS_STATUSES),
    score: z.number(),
    collected_details: z.array(z.string()),
    collected_values: JsonObject,
  })
  .meta({ id: 'DetailsCollection' });

export const AgentRef = z.object({ id: Uuid, name: z.string() });

export const CARRIERS = ['simulated', 'sip'] as const;
export const Carrier = z.enum(CARRIERS);
export type Carrier = z.infer<typeof Carrier>;

export interface SipResponse {
  code: number;
  reason: string;
}

/**
 * The final SIP response the simulated carrier reports for each outcome, as a real network would
 * answer the INVITE: voicemail is answered (by the machine) like a person.
 */
export const SIMULATED_SIP_RESPONSES = {
  completed: { code: 200, reason: 'OK' },
  voicemail: { code: 200, reason: 'OK' },
  busy: { code: 486, reason: 'Busy Here' },
  no_answer: { code: 480, reason: 'Temporarily Unavailable' },
  failed: { code: 503, reason: 'Service Unavailable' },
} as const satisfies Record<CallOutcome, SipResponse>;
/** What the INVITE of a call the system hung up before the answer gets (our CANCEL ended it). */
export const SIP_REQUEST_TERMINATED = {
  code: 487,
  reason: 'Request Terminated',
} as const satisfies SipResponse;

const simulatedSipText = (Object.entries(SIMULATED_SIP_RESPONSES) as [CallOutcome, SipResponse][])
  .map(([outcome, sip]) => `${outcome} ${sip.code} ${sip.reason}`)
  .join(', ');

export const CallTelephony = z
  .object({
    carrier: Carrier.describe(
      '`simulated`: the built-in simulated carrier, no real telephone network was dialed; `sip`: a SIP trunk',
    ),
    trunk_id: Uuid.nullable().describe(
      'The SIP trunk the call went out through; null for the simulated carrier',
    ),
    sip_code: z
      .number()
      .int()
      .nullable()
      .describe(
        'Final SIP response code to the call\u2019s INVITE; null while none has arrived (initializing, ringing), ' +
          'when the call ended without one (a timeout), or for calls stored before SIP responses were kept',
      ),
    sip_reason: z.string().nullable().describe('Reason phrase of that response; null with sip_code'),
  })
  .meta({
    id: 'CallTelephony',
    description:
      'How the call was carried. The simulated carrier answers as a real network would: ' +
      `${simulatedSipText}; ${SIP_REQUEST_TERMINATED.code} ${SIP_REQUEST_TERMINATED.reason} when the system ` +
      'hung up before the answer; 200 OK as soon as a call is answered (in_progress).',
  });
export type CallTelephony = z.infer<typeof CallTelephony>;

/** The call record: spec 2.2 and 2.3 plus the webhook payload's fields (docs/api-guide.md, "Calls"). */
export const Call = z
  .object({
    id: Uuid,
    session_id: Uuid,
    status: CallStatus,
    phone_number: E164,
    source_number: E164,
    direction: z.literal('outbound'),
    agent: AgentRef,
    agent_id: Uuid,
    agent_type: z.string(),
    user_id: z.string(),
    campaign_id: Uuid.nullable(),
    metadata: JsonObject.nullable(),
    created_at: DateTime,
    started_at: DateTime.nullable().describe('When the call was accepted (wall clock)'),
    answered_at: DateTime.nullable().describe(
      'When the call was picked up (by a person, or a voicemail machine); null if it never was',
    ),
    ended_at: DateTime.nullable().describe(
      'When the call ended; null until then. Every timestamp of a call is the wall-clock time at which it ' +
        'happened, never in the future, whatever the simulated carrier\u2019s pace (SIM_TIME_SCALE)',
    ),
    duration: z
      .number()
      .int()
      .describe(
        'Wall-clock seconds from answered_at to ended_at, counted per started second (like carrier billing); ' +
          '0 for a call that was never answered',
      ),
    duration_seconds: z.number().int().describe('The same as duration'),
    duration_minutes: z.number().describe('duration / 60, rounded to two decimals'),
    transcript: z
      .array(TranscriptEntry)
      .describe(
        'What was said, in order; each entry\u2019s timestamp is the UTC clock time (HH:MM:SS) its line began, ' +
          'between answered_at and ended_at. Empty for a call that was never answered',
      ),
    recording_url: z
      .string()
      .describe(
        'Signed link to the recording (WAV), valid for a limited time and fresh on every read; `""` when the ' +
          'call produced no audio (never answered, or not ended yet)',
      ),
    sentiment: Sentiment.describe(
      'positive, neutral or negative; `neutral` when there was no conversation (not answered, voicemail, or ' +
        'not ended yet)',
    ),
    call_summary: z.string().nullable(),
    call_end_reason: CallEndReason.nullable(),
    ended_by: EndedBy.nullable(),
    details_collection: DetailsCollection.nullable(),
    ai_cost: z.number(),
    telephony_cost: z.number(),
    total_cost: z.number(),
    cost_currency: z.literal('USD'),
    prompt_version_id: Uuid.nullable(),
    prompt_hash: z.string(),
    telephony: CallTelephony,
  })
  .meta({ id: 'Call' });
export type Call = z.infer<typeof Call>;

/** Metadata travels with the call everywhere (records, webhooks, exports): bounded like a provider's. */
export const CALL_METADATA_MAX_BYTES = 16 * 1024;
const CallMetadata = JsonObject.refine(
  (value) => Buffer.byteLength(JSON.stringify(value)) <= CALL_METADATA_MAX_BYTES,
  `must serialize to at most ${CALL_METADATA_MAX_BYTES / 1024} KiB of JSON`,
);

export const MakeCallBody = z
  .object({
    agent_id: Uuid,
    source_number: E164,
    phone_number: E164,
    metadata: CallMetadata.nullable().optional(),
  })
  .meta({ id: 'MakeCall' });
export type MakeCallBody = z.infer<typeof MakeCallBody>;

export const CallFilters = z.object({
  status: CallStatus.optional(),
  agent_id: Uuid.optional(),
  campaign_id: Uuid.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});
export type CallFilters = z.infer<typeof CallFilters>;

export const ListCallsQuery = PageQuery.extend(CallFilters.shape);
export type ListCallsQuery = z.infer<typeof ListCallsQuery>;

export const ExportCallsQuery = CallFilters.extend({ format: z.enum(['csv', 'jsonl']).default('jsonl') });
export type ExportCallsQuery = z.infer<typeof ExportCallsQuery>;

/** Where an export stopped: the last row sent (exports run newest first). */
export const ExportCursor = z.object({ created_at: DateTime, id: Uuid });
export type ExportCursor = z.infer<typeof ExportCursor>;

export const EXPORT_CHUNK_MAX = 1000;

export const ExportChunkRequest = CallFilters.extend({
  after: ExportCursor.nullable().default(null),
  limit: z.number().int().min(1).max(EXPORT_CHUNK_MAX).default(500),
});

export const ExportChunk = z.object({ items: z.array(Call), next: ExportCursor.nullable() });

/** Internal: what the gateway needs to serve a recording link (the link's signature is the authority). */
export const RecordingInfo = z.object({
  call_id: Uuid,
  status: CallStatus,
  duration_seconds: z.number().int(),
  has_recording: z.boolean(),
});

export const RECORDING_CHUNK_MAX = 256 * 1024;
export const RecordingChunkRequest = z.object({
  call_id: Uuid,
  offset: z.number().int().min(0),
  length: z.number().int().min(1).max(RECORDING_CHUNK_MAX),
});
export const RecordingChunk = z.object({
  data: z.base64(),
  total: z.number().int(),
  content_type: z.literal('audio/wav'),
});
