import { z } from 'zod';
import { WebhookUrl } from './agent';
import { CallStatus } from './call';
import { Campaign, CampaignContact } from './campaign';
import { DateTime, Uuid } from './common';
import { readableText } from './text';
import { CallEndedData, DeliveryAttempt, EndpointDeliveryStatus } from './webhook';

/** The events an account webhook endpoint can subscribe to (decisions.md, "Compliance and campaign control"). */
export const ENDPOINT_EVENT_KINDS = [
  'CALL_RINGING',
  'CALL_ANSWERED',
  'CALL_ENDED',
  'CAMPAIGN_STARTED',
  'CAMPAIGN_PAUSED',
  'CAMPAIGN_RESUMED',
  'CAMPAIGN_COMPLETED',
  'CAMPAIGN_CANCELLED',
  'CONTACT_EXHAUSTED',
] as const;
export const EndpointEventKind = z.enum(ENDPOINT_EVENT_KINDS);
export type EndpointEventKind = z.infer<typeof EndpointEventKind>;

/** How long the secret a rotation replaced keeps signing deliveries beside the new one. */
export const SECRET_OVERLAP_HOURS = 24;
export const ENDPOINT_DESCRIPTION_MAX = 500;

const events = z
  .array(EndpointEventKind)
  .min(1, 'must name at least one event')
  .max(ENDPOINT_EVENT_KINDS.length * 2)
  .describe(`The events to send, one or more of ${ENDPOINT_EVENT_KINDS.join(', ')} (repeats are dropped)`);
const description = readableText(z.string().trim().max(ENDPOINT_DESCRIPTION_MAX))
  .nullable()
  .describe('What the endpoint is for, in words; null without one');

export const CreateWebhookEndpointBody = z
  .object({
    url: WebhookUrl.describe('Where events are POSTed: an http or https URL on a public address'),
    events,
    description: description.default(null),
  })
  .meta({ id: 'CreateWebhookEndpoint', description: 'An account webhook endpoint to add' });
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = z
  .object({
    url: WebhookUrl.optional().describe('A new address'),
    events: events.optional(),
    enabled: z
      .boolean()
      .optional()
      .describe(
        'false: no new event is delivered to it until it is enabled again, and its deliveries not yet final end cancelled',
      ),
    description: description.optional(),
  })
  .meta({ id: 'UpdateWebhookEndpoint', description: 'The fields to change; omitted ones are kept' });
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

/** The optional body of a test event request: which event to send a sample of. */
export const SendEndpointTestShape = {
  event: EndpointEventKind.optional().describe(
    'The event to send a sample of: one of the endpoint\u2019s events; CALL_ENDED when omitted (whatever its events)',
  ),
};
export const SendEndpointTestBody = z
  .object(SendEndpointTestShape)
  .meta({ id: 'SendEndpointTest', description: 'Which event a test delivery carries' });
export type SendEndpointTestBody = z.infer<typeof SendEndpointTestBody>;

export const WebhookEndpoint = z
  .object({
    id: Uuid.describe('The endpoint\u2019s id'),
    url: z.string().describe('Where events are POSTed'),
    events: z.array(EndpointEventKind).describe('The events sent there'),
    description: z.string().nullable().describe('What it is for; null without one'),
    enabled: z.boolean().describe('Whether new events are delivered to it'),
    secret_rotated_at: DateTime.nullable().describe('When its secret was last rotated; null if never'),
    previous_secret_expires_at: DateTime.nullable().describe(
      `Until when the secret replaced by the last rotation still signs deliveries too (${SECRET_OVERLAP_HOURS} h after it); null when none does`,
    ),
    created_at: DateTime.describe('When it was added'),
    updated_at: DateTime.describe('When it last changed'),
  })
  .meta({
    id: 'WebhookEndpoint',
    description:
      'An account webhook endpoint: where the account\u2019s events go (the secret is never returned)',
  });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z
    .string()
    .describe(
      'The signing secret: shown only here, on create and on rotation. Store it now; it cannot be read back',
    ),
}).meta({ id: 'WebhookEndpointWithSecret', description: 'A webhook endpoint with its new signing secret' });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const EndpointDelivery = z
  .object({
    id: Uuid.describe('The delivery\u2019s id (X-Service-Delivery-Id)'),
    endpoint_id: Uuid.describe('The endpoint it is sent to'),
    event_id: Uuid.describe(
      'The event (X-Service-Event-Id, and event_id in the body): the same for every delivery of it',
    ),
    event: EndpointEventKind.describe('The kind of event'),
    url: z.string().describe('Where it is sent'),
    status: EndpointDeliveryStatus.describe(
      'pending, delivering, succeeded, failed once its attempts ran out, or cancelled: the endpoint was ' +
        'disabled before it was sent (never sent afterwards, even when the endpoint is enabled again)',
    ),
    attempts: z.array(DeliveryAttempt).describe('Its attempts so far, in order'),
    next_attempt_at: DateTime.nullable().describe('When the next attempt is due; null when none is'),
    redelivery_of: Uuid.nullable().describe('The delivery it repeats; null for a first delivery'),
    test: z.boolean().describe('Whether it carries a test event'),
    created_at: DateTime.describe('When it was created'),
    completed_at: DateTime.nullable().describe(
      'When it succeeded, failed for good or was cancelled; null until then',
    ),
  })
  .meta({ id: 'EndpointDelivery', description: 'One delivery of an event to an account webhook endpoint' });
export type EndpointDelivery = z.infer<typeof EndpointDelivery>;

/** The call record as CALL_RINGING and CALL_ANSWERED carry it: CALL_ENDED's shape, the end not there yet. */
export const EndpointCallData = CallEndedData.extend({
  status: CallStatus.describe(
    'ringing (CALL_RINGING), in_progress (CALL_ANSWERED) or the outcome (CALL_ENDED)',
  ),
  started_at: DateTime.nullable().describe('When the call was accepted'),
  ended_at: DateTime.nullable().describe('When the call ended; null before'),
  call_summary: z.string().nullable().describe('What happened; null before the end'),
  call_end_reason: CallEndedData.shape.call_end_reason.nullable(),
  ended_by: CallEndedData.shape.ended_by.nullable(),
  details_collection: CallEndedData.shape.details_collection.nullable(),
}).meta({ id: 'EndpointCallData', description: 'A call as an endpoint event carries it' });

/** The documented envelope of every endpoint delivery's body. */
function endpointEnvelope<E extends EndpointEventKind, D extends z.ZodType>(event: E, data: D, what: string) {
  return z
    .object({
      event: z.literal(event),
      event_id: Uuid.describe(
        'Unique per occurrence; the same on a retry or a redelivery (deduplicate by it)',
      ),
      occurred_at: DateTime.describe('When it happened'),
      account_id: z.string().describe('The account it happened in'),
      data,
    })
    .meta({
      id: `${event.toLowerCase().replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase())}Event`,
      description: what,
    });
}

export const ContactExhaustedData = z
  .object({
    campaign_id: Uuid.describe('The campaign'),
    contact: CampaignContact.describe('The contact, with its attempts and call ids'),
  })
  .meta({ id: 'ContactExhaustedData' });

export const ENDPOINT_EVENT_PAYLOADS = {
  CALL_RINGING: endpointEnvelope('CALL_RINGING', EndpointCallData, 'A call started ringing at the callee'),
  CALL_ANSWERED: endpointEnvelope('CALL_ANSWERED', EndpointCallData, 'A call was answered'),
  CALL_ENDED: endpointEnvelope('CALL_ENDED', EndpointCallData, 'A call ended (any outcome)'),
  CAMPAIGN_STARTED: endpointEnvelope('CAMPAIGN_STARTED', Campaign, 'A campaign started running'),
  CAMPAIGN_PAUSED: endpointEnvelope('CAMPAIGN_PAUSED', Campaign, 'A campaign was paused'),
  CAMPAIGN_RESUMED: endpointEnvelope('CAMPAIGN_RESUMED', Campaign, 'A paused campaign was resumed'),
  CAMPAIGN_COMPLETED: endpointEnvelope('CAMPAIGN_COMPLETED', Campaign, 'A campaign finished its contacts'),
  CAMPAIGN_CANCELLED: endpointEnvelope('CAMPAIGN_CANCELLED', Campaign, 'A campaign was cancelled'),
  CONTACT_EXHAUSTED: endpointEnvelope(
    'CONTACT_EXHAUSTED',
    ContactExhaustedData,
    'A campaign contact\u2019s last allowed attempt ended with an outcome its retry_config retries',
  ),
} as const satisfies Record<EndpointEventKind, z.ZodType>;

/** The body of any endpoint delivery. */
export interface EndpointEventBody {
  event: EndpointEventKind;
  event_id: string;
  occurred_at: string;
  account_id: string;
  data: unknown;
}
