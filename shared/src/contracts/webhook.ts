import { z } from 'zod';
import { Call, CallEndReason, CallOutcome, DetailsCollection, EndedBy, TranscriptEntry } from './call';
import { DateTime, JsonObject, Uuid } from './common';

/**
 * The call record's fields a CALL_ENDED delivery carries (spec 6.3), plus `telephony` and
 * `opted_out`, each with the type it has for every outcome: a delivery is only sent for an ended
 * call, so the fields the call record leaves null until then are always set here.
 */
export const CallEndedData = Call.pick({
  session_id: true,
  phone_number: true,
  direction: true,
  duration_seconds: true,
  duration_minutes: true,
  agent_id: true,
  agent_type: true,
  sentiment: true,
  transcript: true,
  ai_cost: true,
  telephony_cost: true,
  total_cost: true,
  telephony: true,
  opted_out: true,
})
  .extend({
    session_id: Uuid.describe('The call\u2019s id: deduplicate deliveries by it (or by X-Service-Event-Id)'),
    status: CallOutcome.describe('How the call ended'),
    started_at: DateTime.describe('When the call was accepted'),
    ended_at: DateTime.describe('When the call ended'),
    call_summary: z.string().describe('What happened on the call, in a sentence or two'),
    call_end_reason: CallEndReason,
    ended_by: EndedBy,
    details_collection: DetailsCollection,
    transcript: z
      .array(TranscriptEntry)
      .describe('What was said, in order; empty for a call that was never answered'),
    recording_url: z
      .string()
      .describe(
        'Signed link to the recording (WAV), valid for a limited time; `""` when the call produced no audio',
      ),
    metadata: JsonObject.describe(
      'The metadata the call was placed with (`{}` without any); for a campaign call also `campaign_id`, and ' +
        '`contact` (the contact\u2019s other columns). A test event carries `"test": true`',
    ),
  })
  .meta({ id: 'CallEndedData' });
export type CallEndedData = z.infer<typeof CallEndedData>;

/** The CALL_ENDED body (docs/api-guide.md, "Webhooks"). */
export const CallEndedPayload = z
  .object({
    event: z.literal('CALL_ENDED'),
    timestamp: DateTime.describe('When the delivery was built (ISO 8601, UTC)'),
    data: CallEndedData,
  })
  .meta({ id: 'CallEndedPayload' });
export type CallEndedPayload = z.infer<typeof CallEndedPayload>;

/** The headers of every webhook delivery, besides Content-Type: application/json. */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  eventId: 'X-Service-Event-Id',
  deliveryId: 'X-Service-Delivery-Id',
  signature: 'X-Service-Signature',
  signatureTimestamped: 'X-Service-Signature-Timestamped',
} as const;

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);
/** An account endpoint's delivery may also end cancelled: queued when the endpoint was disabled. */
export const ENDPOINT_DELIVERY_STATUSES = [...DELIVERY_STATUSES, 'cancelled'] as const;
export const EndpointDeliveryStatus = z.enum(ENDPOINT_DELIVERY_STATUSES);
export type EndpointDeliveryStatus = z.infer<typeof EndpointDeliveryStatus>;

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().describe('Its number, from 1'),
    started_at: DateTime.describe('When the request was sent'),
    duration_ms: z.number().int().describe('How long it took, in milliseconds'),
    status_code: z.number().int().nullable().describe('Your server\u2019s HTTP status; null when none came'),
    error: z.string().nullable().describe('Why it failed without a status (timeout, refused); else null'),
    succeeded: z.boolean().describe('Whether your server answered 2xx'),
  })
  .meta({ id: 'DeliveryAttempt', description: 'One HTTP request of a webhook delivery' });

export const WebhookDelivery = z
  .object({
    id: Uuid.describe('The delivery\u2019s id (X-Service-Delivery-Id)'),
    agent_id: Uuid.describe('The agent whose event it is'),
    event_id: Uuid.describe('The event (X-Service-Event-Id): the same for every delivery of it'),
    event: z.literal('CALL_ENDED').describe('The kind of event'),
    session_id: z.string().describe('The call the event is about'),
    url: z.string().describe('Where it is sent'),
    status: DeliveryStatus.describe('pending, delivering, succeeded, or failed once its attempts ran out'),
    attempts: z.array(DeliveryAttempt).describe('Its attempts so far, in order'),
    next_attempt_at: DateTime.nullable().describe('When the next attempt is due; null when none is'),
    redelivery_of: Uuid.nullable().describe('The delivery it repeats; null for a first delivery'),
    test: z.boolean().describe('Whether it carries a test event'),
    created_at: DateTime.describe('When it was created'),
    completed_at: DateTime.nullable().describe('When it succeeded or failed for good; null until then'),
  })
  .meta({ id: 'WebhookDelivery', description: 'One delivery of an event to an agent\u2019s webhook' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** Most redeliveries one bulk request queues; `has_more` tells the caller to ask again. */
export const BULK_REDELIVER_MAX = 1000;
/** Widest time range one bulk request covers. */
export const BULK_REDELIVER_RANGE_MAX_DAYS = 30;
const RANGE_MAX_MS = BULK_REDELIVER_RANGE_MAX_DAYS * 24 * 60 * 60 * 1000;

/** The body of a bulk redelivery: which failed deliveries of the agent, by creation time. */
export const BulkRedeliverShape = {
  status: z
    .literal('failed')
    .default('failed')
    .describe('Which deliveries are sent again: only failed ones (the default)'),
  from: DateTime.describe('Failed deliveries created at or after this time (ISO 8601 with offset)'),
  to: DateTime.describe(
    `... and before this time: after \`from\`, at most ${BULK_REDELIVER_RANGE_MAX_DAYS} days later`,
  ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(BULK_REDELIVER_MAX)
    .default(BULK_REDELIVER_MAX)
    .describe(`Most deliveries queued by this request (1 to ${BULK_REDELIVER_MAX})`),
};

/** `from` before `to`, at most BULK_REDELIVER_RANGE_MAX_DAYS apart (reported on `to`). */
export function boundedRange(value: { from: string; to: string }, ctx: z.RefinementCtx): void {
  const from = Date.parse(value.from);
  const to = Date.parse(value.to);
  if (Number.isNaN(from) || Number.isNaN(to)) return;
  if (to <= from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  else if (to - from > RANGE_MAX_MS)
    ctx.addIssue({
      code: 'custom',
      path: ['to'],
      message: `must be at most ${BULK_REDELIVER_RANGE_MAX_DAYS} days after from`,
    });
}

export const BulkRedeliverBody = z
  .object(BulkRedeliverShape)
  .superRefine(boundedRange)
  .meta({ id: 'BulkRedeliver' });

export const BulkRedelivery = z
  .object({
    queued: z.number().int().describe('New deliveries created by this request, one per event'),
    has_more: z
      .boolean()
      .describe('More failed events in the range were left for another request (same body)'),
    deliveries: z
      .array(
        z
          .object({
            id: Uuid.describe('The new delivery'),
            redelivery_of: Uuid.describe('The failed delivery it repeats'),
            event_id: Uuid.describe('The event delivered'),
          })
          .describe('A delivery queued by a bulk redelivery'),
      )
      .describe('The new deliveries (pending), each naming the failed delivery it repeats'),
  })
  .meta({ id: 'BulkRedelivery', description: 'What a bulk redelivery queued' });
export type BulkRedelivery = z.infer<typeof BulkRedelivery>;
