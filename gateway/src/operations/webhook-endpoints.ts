import {
  BULK_REDELIVER_MAX,
  BULK_REDELIVER_RANGE_MAX_DAYS,
  BulkRedeliverBody,
  BulkRedeliverShape,
  boundedRange,
  CreateWebhookEndpointBody,
  ENDPOINT_EVENT_KINDS,
  PageQuery,
  REQUEST_EXAMPLES,
  SECRET_OVERLAP_HOURS,
  SendEndpointTestBody,
  SendEndpointTestShape,
  UpdateWebhookEndpointBody,
  Uuid,
  WEBHOOK_ENDPOINT,
} from '@voice/shared';
import { z } from 'zod';
import { idFrom } from '../http/rpc-route';
import { present, snakeKeys } from './graphql-args';
import { rpcOperation } from './operation';

const tags = ['Webhook endpoints'];
const ByEndpoint = z.object({ id: Uuid.describe('The webhook endpoint\u2019s id') });
const EndpointParams = z.object({ endpoint_id: Uuid });
const byEndpoint = idFrom('endpoint_id');
const endpointOf = ({ id }: { id: string }) => ({ endpoint_id: id });

const NOT_FOUND = 'Another account\u2019s endpoint is answered exactly like a missing one (404).';
const SCOPES =
  'Reading takes calls:read, changing takes calls:write: an endpoint receives the account\u2019s call records.';
const URL_RULE =
  'The url must be http or https and, unless the operator set WEBHOOK_ALLOW_PRIVATE, name and resolve to public ' +
  'addresses only (the rule of agents\u2019 webhook_config): otherwise a 422 on `url`.';
const EVENTS = `Events: ${ENDPOINT_EVENT_KINDS.join(', ')}; an unknown one, or none, is a 422.`;
const SECRET =
  'The secret signs every delivery (X-Service-Signature, X-Service-Signature-Timestamped) and is shown only in ' +
  'this answer: store it now.';

/** The account's webhook endpoints, which the webhook service keeps and delivers to. */
export const WEBHOOK_ENDPOINT_OPERATIONS = {
  'webhookEndpoints.list': rpcOperation({
    graphql: 'Query.webhookEndpoints',
    graphqlField: {
      type: 'WebhookEndpointPage!',
      description: "The account's webhook endpoints, newest first.",
    },
    rest: {
      method: 'GET',
      url: '/v1/webhook-endpoints',
      tags,
      summary: 'List webhook endpoints',
      description: `Newest first, in the page wrapper. Secrets are never listed. ${SCOPES}`,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the account\u2019s webhook endpoints',
      errors: [401, 403, 422],
    },
    scope: 'calls:read',
    input: PageQuery,
    contract: WEBHOOK_ENDPOINT.list,
    toRequest: (input) => input,
  }),
  'webhookEndpoints.get': rpcOperation({
    graphql: 'Query.webhookEndpoint',
    graphqlField: {
      type: 'WebhookEndpoint',
      description:
        'One webhook endpoint; null (WEBHOOK_ENDPOINT_NOT_FOUND in errors) when the account has none with this id.',
    },
    rest: {
      method: 'GET',
      url: '/v1/webhook-endpoints/:endpoint_id',
      tags,
      summary: 'Get a webhook endpoint',
      description: `The endpoint without its secret. ${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      toInput: byEndpoint,
      status: 200,
      answers: 'The webhook endpoint',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:read',
    input: ByEndpoint,
    contract: WEBHOOK_ENDPOINT.get,
    toRequest: endpointOf,
  }),
  'webhookEndpoints.create': rpcOperation({
    graphql: 'Mutation.createWebhookEndpoint',
    graphqlField: {
      type: 'WebhookEndpointWithSecret!',
      description: 'Adds a webhook endpoint; the answer carries its signing secret, shown only this once.',
      inputArg: { type: 'CreateWebhookEndpointInput', description: 'The endpoint to add.' },
    },
    graphqlArgs: ({ input }) => present(snakeKeys(input)),
    rest: {
      method: 'POST',
      url: '/v1/webhook-endpoints',
      tags,
      summary: 'Add a webhook endpoint',
      description:
        'Every event of the account named in `events` is POSTed there once per occurrence (a JSON envelope ' +
        '`{ event, event_id, occurred_at, account_id, data }`; see the `webhooks` section), with 3 attempts. ' +
        `${EVENTS} ${URL_RULE} ${SECRET} ${SCOPES}`,
      body: CreateWebhookEndpointBody,
      bodyExample: { url: 'https://example.com/hooks/voice', events: ['CALL_ENDED', 'CAMPAIGN_COMPLETED'] },
      status: 201,
      answers: 'The new endpoint, with its secret',
      errors: [401, 403, 413, 415, 422],
    },
    scope: 'calls:write',
    input: CreateWebhookEndpointBody,
    contract: WEBHOOK_ENDPOINT.create,
    toRequest: (input) => input,
  }),
  'webhookEndpoints.update': rpcOperation({
    graphql: 'Mutation.updateWebhookEndpoint',
    graphqlField: {
      type: 'WebhookEndpoint!',
      description: 'Changes a webhook endpoint: only the fields sent.',
      inputArg: { type: 'UpdateWebhookEndpointInput', description: 'The changes.' },
    },
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input), id }),
    rest: {
      method: 'PATCH',
      url: '/v1/webhook-endpoints/:endpoint_id',
      tags,
      summary: 'Update a webhook endpoint',
      description:
        'Partial: omitted fields keep their value. `events` replaces the whole list. `enabled: false` stops new ' +
        'events reaching it and cancels its deliveries not yet final, in the same change: they end `cancelled` in ' +
        'its delivery log and are never sent, even when it is enabled again (redeliver them to send them). An ' +
        'attempt already under way is recorded in the log and not retried. A new url applies to events from now ' +
        `on and to redeliveries. ${EVENTS} ${URL_RULE} ${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      body: UpdateWebhookEndpointBody,
      bodyExample: { events: ['CALL_ENDED'], enabled: true },
      toInput: ({ params, body }) => ({ ...(body as UpdateWebhookEndpointBody), id: params.endpoint_id }),
      status: 200,
      answers: 'The endpoint as updated',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint.extend(UpdateWebhookEndpointBody.shape).describe(
      UpdateWebhookEndpointBody.description ?? '',
    ),
    contract: WEBHOOK_ENDPOINT.update,
    toRequest: ({ id, ...changes }) => ({ endpoint_id: id, changes }),
  }),
  'webhookEndpoints.delete': rpcOperation({
    graphql: 'Mutation.deleteWebhookEndpoint',
    graphqlField: {
      type: 'Boolean!',
      description: 'Removes a webhook endpoint and its delivery log; true once removed.',
    },
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    rest: {
      method: 'DELETE',
      url: '/v1/webhook-endpoints/:endpoint_id',
      tags,
      summary: 'Delete a webhook endpoint',
      description:
        'Nothing more is sent there: its queued deliveries are removed with it, together with its delivery log ' +
        '(an attempt already under way finishes, unrecorded, and is never retried). To keep the log, disable ' +
        `the endpoint instead (\`enabled: false\`). ${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      toInput: byEndpoint,
      status: 204,
      answers: 'Deleted; no content',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint,
    contract: WEBHOOK_ENDPOINT.delete,
    toRequest: endpointOf,
  }),
  'webhookEndpoints.rotateSecret': rpcOperation({
    graphql: 'Mutation.rotateWebhookEndpointSecret',
    graphqlField: {
      type: 'WebhookEndpointWithSecret!',
      description: `A new signing secret, shown once; the old one keeps signing beside it for ${SECRET_OVERLAP_HOURS} hours.`,
      idArg: 'id',
    },
    rest: {
      method: 'POST',
      url: '/v1/webhook-endpoints/:endpoint_id/rotate-secret',
      tags,
      summary: 'Rotate a webhook endpoint\u2019s secret',
      description:
        `Answers a new secret, shown only here. For ${SECRET_OVERLAP_HOURS} hours (previous_secret_expires_at) the ` +
        'secret it replaced stays valid: every attempt then carries X-Service-Signature made with the new secret ' +
        'and X-Service-Signature-Timestamped `t=<ts>,v1=<new>,v1=<old>`, so a receiver may check either while it ' +
        'moves to the new one; afterwards only the new one signs. Rotating again within the overlap drops the ' +
        `oldest. Retries and redeliveries are signed with the secrets valid when they are sent. No body. ${NOT_FOUND} ` +
        SCOPES,
      params: EndpointParams,
      toInput: byEndpoint,
      status: 200,
      answers: 'The endpoint with its new secret',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint,
    contract: WEBHOOK_ENDPOINT.rotateSecret,
    toRequest: endpointOf,
  }),
  'webhookEndpoints.deliveries': rpcOperation({
    graphql: 'Query.webhookEndpointDeliveries',
    graphqlField: {
      type: 'EndpointDeliveryPage!',
      description: 'Deliveries to this endpoint, newest first, each with its attempts.',
    },
    rest: {
      method: 'GET',
      url: '/v1/webhook-endpoints/:endpoint_id/deliveries',
      tags,
      summary: 'List a webhook endpoint\u2019s deliveries',
      description:
        'Newest first, in the page wrapper. One delivery is one event sent to the endpoint; each lists its attempts ' +
        '(started_at, duration_ms, and status_code or error). status is pending (waiting for its first attempt or a ' +
        'retry at next_attempt_at), delivering, succeeded (a 2xx), failed (3 attempts without a 2xx) or cancelled ' +
        '(the endpoint was disabled before it was sent; final). ' +
        `${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      toInput: byEndpoint,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the endpoint\u2019s deliveries',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:read',
    input: ByEndpoint.extend(PageQuery.shape),
    contract: WEBHOOK_ENDPOINT.listDeliveries,
    toRequest: ({ id, ...page }) => ({ endpoint_id: id, ...page }),
  }),
  'webhookEndpoints.redeliver': rpcOperation({
    graphql: 'Mutation.redeliverWebhookEndpointDelivery',
    graphqlField: {
      type: 'EndpointDelivery!',
      description: 'A new delivery of the same event to the endpoint\u2019s current url.',
      idArg: 'id',
    },
    rest: {
      method: 'POST',
      url: '/v1/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/redeliver',
      toInput: byEndpoint,
      tags,
      summary: 'Redeliver a webhook endpoint event',
      description:
        'Creates a new delivery of the same event: the same X-Service-Event-Id and byte-identical body, a new ' +
        'X-Service-Delivery-Id, sent to the endpoint\u2019s current url and signed with its current secrets, with 3 ' +
        'attempts of its own. Answers the new delivery, pending (redelivery_of names the original). No body. ' +
        `${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams.extend({ delivery_id: Uuid }),
      status: 201,
      answers: 'The new delivery, pending',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint.extend({ delivery_id: Uuid.describe('The delivery to send again') }),
    contract: WEBHOOK_ENDPOINT.redeliver,
    toRequest: ({ id, delivery_id }) => ({ endpoint_id: id, delivery_id }),
  }),
  'webhookEndpoints.redeliverFailed': rpcOperation({
    graphql: 'Mutation.redeliverFailedWebhookEndpointDeliveries',
    graphqlField: {
      type: 'BulkRedelivery!',
      description: 'Every event whose delivery to the endpoint failed in the range, delivered again once.',
      idArg: 'id',
      inputArg: { type: 'RedeliverFailedInput', description: 'Which failed deliveries.' },
    },
    graphqlArgs: ({ id, input }) => ({ ...present(snakeKeys(input)), id }),
    rest: {
      method: 'POST',
      url: '/v1/webhook-endpoints/:endpoint_id/deliveries/redeliver',
      toInput: byEndpoint,
      tags,
      summary: 'Redeliver failed webhook endpoint events in bulk',
      description:
        'Redelivers, as the single redeliver does (same X-Service-Event-Id and body, to the endpoint\u2019s current ' +
        'url and secrets, 3 attempts of its own), every event whose delivery to the endpoint failed between `from` ' +
        `(inclusive) and \`to\` (exclusive, at most ${BULK_REDELIVER_RANGE_MAX_DAYS} days later), by the failed ` +
        'delivery\u2019s created_at: one new delivery per event however often it failed, oldest first. Events ' +
        'delivered since, or already queued again (pending or delivering), and test events are skipped, so ' +
        'repeating the request never sends an event twice; cancelled deliveries are not failed ones (redeliver ' +
        `them one by one). At most \`limit\` (default and most ${BULK_REDELIVER_MAX}) per request: with has_more, ` +
        'send the same body again. Answers how many were queued and the new deliveries. The same body, limits ' +
        `and answer as an agent\u2019s bulk redelivery. ${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      body: BulkRedeliverBody,
      bodyExample: REQUEST_EXAMPLES.bulkRedeliver,
      status: 200,
      answers: 'How many deliveries were queued, and the new deliveries',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint.extend(BulkRedeliverShape).superRefine(boundedRange),
    contract: WEBHOOK_ENDPOINT.redeliverFailed,
    toRequest: ({ id, ...body }) => ({ endpoint_id: id, ...body }),
  }),
  'webhookEndpoints.sendTest': rpcOperation({
    graphql: 'Mutation.sendWebhookEndpointTest',
    graphqlField: {
      type: 'EndpointDelivery!',
      description:
        'A sample of one of the endpoint\u2019s events (CALL_ENDED by default), marked as a test, sent to the endpoint.',
      idArg: 'id',
    },
    rest: {
      method: 'POST',
      url: '/v1/webhook-endpoints/:endpoint_id/test',
      toInput: byEndpoint,
      tags,
      summary: 'Send a test event to a webhook endpoint',
      description:
        'Sends a sample of `event` in the endpoint envelope, shaped exactly like a real one (see the `webhooks` ' +
        'section) and about nothing real: call events (CALL_RINGING, CALL_ANSWERED, CALL_ENDED) describe a ' +
        'fictional call to a reserved number, without recording, with `"test": true` in data.metadata; campaign ' +
        'events a fictional campaign named "Test campaign (no call was placed)"; CONTACT_EXHAUSTED a contact with ' +
        '`"test": true` in its data. `event` must be one of the endpoint\u2019s events (else 422 on `event`); ' +
        'without it (or without a body) a CALL_ENDED is sent, whatever the endpoint\u2019s events. Signed and ' +
        `retried like any delivery. Answers the new delivery (test: true). ${NOT_FOUND} ${SCOPES}`,
      params: EndpointParams,
      body: z.preprocess((body) => body ?? {}, SendEndpointTestBody),
      bodyExample: { event: 'CALL_ENDED' },
      status: 201,
      answers: 'The test delivery, pending',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'calls:write',
    input: ByEndpoint.extend(SendEndpointTestShape),
    contract: WEBHOOK_ENDPOINT.sendTest,
    toRequest: ({ id, event }) => ({ endpoint_id: id, ...(event === undefined ? {} : { event }) }),
  }),
};
