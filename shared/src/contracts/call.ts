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
  'declined',
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
    role: z.enum(['agent', 'user']).describe('Who spoke: the agent or the person called'),
    content: z.string().describe('What was said'),
    timestamp: z
      .string()
      .regex(/^\d{2}:\d{2}:\d{2}$/)
      .describe('UTC clock time (HH:MM:SS) the line began'),
    confidence: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        'How sure speech recognition was of the line, from 0 to 1: present on the called person\u2019s lines ' +
          'of a real call, which were recognised from the audio; absent on the agent\u2019s lines (said as ' +
          'written), keypad lines and simulated calls',
      ),
  })
  .meta({ id: 'TranscriptEntry', description: 'One line of a call\u2019s conversation' });

export const DetailsCollection = z
  .object({
    status: z
      .enum(DETAILS_STATUSES)
      .describe('`complete`: every required detail collected; `partial`: some; `none`: none'),
    score: z.number().describe('Share of the details collected, from 0 to 1'),
    collected_details: z.array(z.string()).describe('Names of the details collected'),
    collected_values: JsonObject.describe('The collected values, by detail name'),
  })
  .meta({
    id: 'DetailsCollection',
    description: 'What the agent collected of the details its agent type asks for',
  });

export const AgentRef = z.object({
  id: Uuid.describe('The agent\u2019s id'),
  name: z.string().describe('Its name when the call was placed'),
});

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
    id: Uuid.describe('The call\u2019s id'),
    session_id: Uuid.describe('The same as id (the name webhooks use)'),
    status: CallStatus.describe(
      'initializing, ringing, in_progress, then one outcome: completed, no_answer, failed, voicemail or busy',
    ),
    phone_number: E164.describe('The number called (E.164)'),
    source_number: E164.describe('The number the call was placed from (E.164)'),
    direction: z.literal('outbound').describe('Always `outbound`'),
    agent: AgentRef.describe('The agent as it was when the call was placed'),
    agent_id: Uuid.describe('The agent that made the call'),
    agent_type: z.string().describe('That agent\u2019s type when the call was placed'),
    user_id: z.string().describe('The account the call belongs to'),
    campaign_id: Uuid.nullable().describe('The campaign that placed the call; null for a single call'),
    metadata: JsonObject.nullable().describe('The metadata the call was placed with; null without any'),
    created_at: DateTime.describe('When the call was requested'),
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
    call_summary: z.string().nullable().describe('What happened on the call; null until it ended'),
    call_end_reason: CallEndReason.nullable().describe('Why the call ended; null until it did'),
    ended_by: EndedBy.nullable().describe('Who ended the call; null until it ended'),
    details_collection: DetailsCollection.nullable().describe(
      'What the agent collected; null until the call ended',
    ),
    opted_out: z
      .boolean()
      // Records from call service instances older than the field (events in flight) read as before.
      .default(false)
      .describe(
        'The person called asked not to be called again (the number is then on the account\u2019s do-not-call ' +
          'list, source `opt_out`); false until the call ended, and for simulated calls except the opt-out test number',
      ),
    ai_cost: z.number().describe('Cost of the agent\u2019s model for this call'),
    telephony_cost: z.number().describe('Cost of carrying the call'),
    total_cost: z.number().describe('ai_cost plus telephony_cost'),
    cost_currency: z.literal('USD').describe('Currency of the costs: always `USD`'),
    prompt_version_id: Uuid.nullable().describe(
      'The active prompt version when the agent called with exactly its prompt; else null',
    ),
    prompt_hash: z.string().describe('Hash of the exact prompt the agent called with'),
    telephony: CallTelephony,
  })
  .meta({ id: 'Call', description: 'One outbound call placed by an agent, with its outcome once ended' });
export type Call = z.infer<typeof Call>;

/** Metadata travels with the call everywhere (records, webhooks, exports): bounded like a provider's. */
export const CALL_METADATA_MAX_BYTES = 16 * 1024;
const CallMetadata = JsonObject.refine(
  (value) => Buffer.byteLength(JSON.stringify(value)) <= CALL_METADATA_MAX_BYTES,
  `must serialize to at most ${CALL_METADATA_MAX_BYTES / 1024} KiB of JSON`,
);

export const MakeCallBody = z
  .object({
    agent_id: Uuid.describe('The agent that makes the call'),
    source_number: E164.describe('The number to call from (E.164)'),
    phone_number: E164.describe('The number to call (E.164)'),
    metadata: CallMetadata.nullable()
      .optional()
      .describe('Any JSON object (at most 16 KiB), kept with the call and sent in its webhook'),
  })
  .meta({ id: 'MakeCall', description: 'A call to place now' });
export type MakeCallBody = z.infer<typeof MakeCallBody>;

export const CallFilters = z.object({
  status: CallStatus.optional().describe('Only calls in this status'),
  agent_id: Uuid.optional().describe('Only calls of this agent'),
  campaign_id: Uuid.optional().describe('Only calls of this campaign'),
  from: z.iso.datetime({ offset: true }).optional().describe('Only calls created at or after this time'),
  to: z.iso.datetime({ offset: true }).optional().describe('Only calls created before this time'),
});
export type CallFilters = z.infer<typeof CallFilters>;

export const ListCallsQuery = PageQuery.extend(CallFilters.shape);
export type ListCallsQuery = z.infer<typeof ListCallsQuery>;

export const ExportFormat = z.enum(['csv', 'jsonl']);
export type ExportFormat = z.infer<typeof ExportFormat>;

export const ExportCallsQuery = CallFilters.extend({ format: ExportFormat.default('jsonl') });
export type ExportCallsQuery = z.infer<typeof ExportCallsQuery>;

/**
 * Where an export stopped: the last row sent (exports run newest first). Its time has the
 * database's microseconds: a key rounded to milliseconds would skip or repeat rows sharing one.
 */
export const ExportCursor = z.object({ created_at: DateTime, id: Uuid });
export type ExportCursor = z.infer<typeof ExportCursor>;

export const EXPORT_CHUNK_MAX = 5000;
/**
 * Most bytes of lines in one export chunk: as base64 (4/3) with its links, one NATS message under
 * the default 1 MiB max_payload. A chunk holds at least one call, however large.
 */
export const EXPORT_CHUNK_BYTES = 640 * 1024;

export const ExportChunkRequest = CallFilters.extend({
  format: ExportFormat,
  after: ExportCursor.nullable().default(null),
  /** Calls to read; the chunk stops before EXPORT_CHUNK_BYTES. The gateway sizes it from the last chunk. */
  limit: z.number().int().min(1).max(EXPORT_CHUNK_MAX).default(100),
});

export const ExportChunk = z.object({
  /**
   * The chunk's lines (call-export.ts formats; the CSV header first in a CSV export's first chunk),
   * UTF-8 in base64: JSON carries base64 as it is, where the lines' own quotes would each be
   * escaped on the way and unescaped again.
   */
  data: z.string(),
  /** Where a call's recording link goes: its byte offset in `data` (decoded), and the call. */
  links: z.array(z.tuple([z.number().int().min(0), Uuid])),
  rows: z.number().int().min(0),
  next: ExportCursor.nullable(),
});
export type ExportChunk = z.infer<typeof ExportChunk>;

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
