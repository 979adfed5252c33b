import {
  CALL_ENDED_EXAMPLE,
  ENDPOINT_EVENT_KINDS,
  ENDPOINT_EVENT_PAYLOADS,
  type EndpointEventKind,
  SECRET_OVERLAP_HOURS,
  WEBHOOK_HEADERS,
} from '@voice/shared';

const HEX_MAC = '[0-9a-f]{64}';

function header(name: string, required: boolean, description: string, schema: Record<string, unknown>) {
  return { name, in: 'header', required, description, schema };
}

/** The headers every delivery carries, an agent's webhook or an account endpoint's: what and which. */
function eventHeaders(kind: string) {
  return [
    header(WEBHOOK_HEADERS.event, true, 'The event kind', { type: 'string', const: kind }),
    header(WEBHOOK_HEADERS.eventId, true, 'The event: the same on every attempt and every redelivery', {
      type: 'string',
      format: 'uuid',
    }),
    header(WEBHOOK_HEADERS.deliveryId, true, 'The delivery: one per delivery, the same across its attempts', {
      type: 'string',
      format: 'uuid',
    }),
  ];
}

/**
 * The OpenAPI 3.1 `webhooks` section: the request the webhook service sends to an agent's
 * webhook_config.url when one of its calls ends. The body is the CallEndedPayload contract the
 * service builds it by (services/webhook, domain/payload.ts); the headers are its WEBHOOK_HEADERS.
 */
export const WEBHOOKS = {
  CALL_ENDED: {
    post: {
      operationId: 'callEnded',
      tags: ['Webhooks'],
      summary: 'A call ended (sent to your server)',
      description:
        'Sent to the agent\u2019s `webhook_config.url` when one of its calls ends, whatever the outcome, if ' +
        '`webhook_config.events` lists CALL_ENDED (it does by default). Delivery is at least once: deduplicate by ' +
        '`data.session_id` or X-Service-Event-Id. Verify X-Service-Signature over the raw body, before parsing it. ' +
        'Each delivery and its attempts are listed by GET /v1/agents/{agent_id}/webhook-deliveries.',
      security: [],
      parameters: [
        ...eventHeaders('CALL_ENDED'),
        header(
          WEBHOOK_HEADERS.signature,
          false,
          'With a webhook secret: the lowercase hex HMAC-SHA256 of the raw body, keyed with the secret',
          { type: 'string', pattern: `^${HEX_MAC}$` },
        ),
        header(
          WEBHOOK_HEADERS.signatureTimestamped,
          false,
          'With a webhook secret: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, for a ' +
            'receiver that refuses old deliveries (replays)',
          { type: 'string', pattern: `^t=\\d+,v1=${HEX_MAC}$` },
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/CallEndedPayload' },
            example: CALL_ENDED_EXAMPLE,
          },
        },
      },
      responses: {
        '2XX': {
          description:
            'Received: any 2xx within 10 seconds ends the delivery; the answer\u2019s body is ignored',
        },
        default: {
          description:
            'A failed attempt, as is any other answer (a redirect is never followed), no answer ' +
            'within 10 seconds or a connection error: tried again after WEBHOOK_RETRY_BASE_MS (5 s by default) ' +
            'and then twice that, 3 attempts in all',
        },
      },
    },
  },
};

const camel = (kind: string) =>
  kind.toLowerCase().replace(/(^|_)(\w)/g, (_: string, __: string, c: string) => c.toUpperCase());

/** The request an account webhook endpoint subscribed to `kind` receives (docs/api-guide.md, "Webhook endpoints"). */
function endpointWebhook(kind: EndpointEventKind) {
  return {
    post: {
      operationId: `endpoint${camel(kind)}`,
      tags: ['Webhook endpoints'],
      summary: `${ENDPOINT_EVENT_PAYLOADS[kind].description} (sent to your webhook endpoint)`,
      description:
        `Sent to every enabled webhook endpoint of the account whose \`events\` list ${kind}, once per occurrence ` +
        '(written with the change it reports, in the same transaction, and deduplicated on the way). Deduplicate ' +
        'retries and redeliveries by `event_id` (X-Service-Event-Id). Always signed: X-Service-Signature is the ' +
        'hex HMAC-SHA256 of the raw body with the newest secret; for ' +
        `${SECRET_OVERLAP_HOURS} h after a rotation X-Service-Signature-Timestamped carries one \`v1=\` per valid ` +
        'secret, newest first (`t=<ts>,v1=<new>,v1=<old>`). Listed by GET /v1/webhook-endpoints/{id}/deliveries.',
      security: [],
      parameters: [
        ...eventHeaders(kind),
        header(
          WEBHOOK_HEADERS.signature,
          true,
          'The lowercase hex HMAC-SHA256 of the raw body, keyed with the endpoint\u2019s newest secret',
          { type: 'string', pattern: `^${HEX_MAC}$` },
        ),
        header(
          WEBHOOK_HEADERS.signatureTimestamped,
          true,
          '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one `v1=` per valid secret, newest ' +
            `first: two during the ${SECRET_OVERLAP_HOURS} h after a rotation`,
          { type: 'string', pattern: `^t=\\d+(,v1=${HEX_MAC}){1,2}$` },
        ),
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${camel(kind)}Event` } } },
      },
      responses: WEBHOOKS.CALL_ENDED.post.responses,
    },
  };
}

/** Every webhook: the agents' CALL_ENDED, then the account endpoints' events. */
export const ALL_WEBHOOKS = {
  ...WEBHOOKS,
  ...Object.fromEntries(ENDPOINT_EVENT_KINDS.map((kind) => [`ENDPOINT_${kind}`, endpointWebhook(kind)])),
};
