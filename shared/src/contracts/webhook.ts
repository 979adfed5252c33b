import { z } from 'zod';
import { DateTime, JsonObject, Uuid } from './common';

/** The CALL_ENDED body (docs/api-guide.md, "Webhooks"). */
export const CallEndedPayload = z
  .object({
    event: z.literal('CALL_ENDED'),
    timestamp: DateTime,
    data: JsonObject,
  })
  .meta({ id: 'CallEndedPayload' });
export type CallEndedPayload = z.infer<typeof CallEndedPayload>;

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed'] as const;
export const DeliveryStatus = z.enum(DELIVERY_STATUSES);

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    started_at: DateTime,
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    succeeded: z.boolean(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const WebhookDelivery = z
  .object({
    id: Uuid,
    agent_id: Uuid,
    event_id: Uuid,
    event: z.literal('CALL_ENDED'),
    session_id: z.string(),
    url: z.string(),
    status: DeliveryStatus,
    attempts: z.array(DeliveryAttempt),
    next_attempt_at: DateTime.nullable(),
    redelivery_of: Uuid.nullable(),
    test: z.boolean(),
    created_at: DateTime,
    completed_at: DateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
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
      .array(z.object({ id: Uuid, redelivery_of: Uuid, event_id: Uuid }))
      .describe('The new deliveries (pending), each naming the failed delivery it repeats'),
  })
  .meta({ id: 'BulkRedelivery' });
export type BulkRedelivery = z.infer<typeof BulkRedelivery>;
