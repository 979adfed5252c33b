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
