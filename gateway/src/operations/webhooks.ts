import {
  BULK_REDELIVER_MAX,
  BULK_REDELIVER_RANGE_MAX_DAYS,
  BulkRedeliverBody,
  BulkRedeliverShape,
  boundedRange,
  PageQuery,
  REQUEST_EXAMPLES,
  Uuid,
  WEBHOOK,
} from '@voice/shared';
import { present, snakeKeys } from './graphql-args';
import { rpcOperation } from './operation';
import { AgentParams, agentOf, ByAgent, byAgent } from './resources';

const tags = ['Webhooks'];

/**
 * An agent's webhook deliveries. A webhook is part of an agent's configuration, so sending one
 * again takes the agent write scope.
 */
export const WEBHOOK_OPERATIONS = {
  'agents.webhookDeliveries': rpcOperation({
    graphql: 'Agent.webhookDeliveries',
    graphqlField: {
      type: 'WebhookDeliveryPage!',
      description: "Webhook deliveries of this agent's events, newest first, each with its attempts.",
    },
    rest: {
      method: 'GET',
      url: '/v1/agents/:agent_id/webhook-deliveries',
      tags,
      summary: "List an agent's webhook deliveries",
      description:
        'Newest first, in the page wrapper. One delivery is one event sent to one address; each lists its ' +
        'attempts in order (started_at, duration_ms, and status_code or error). status is pending (waiting ' +
        'for its first attempt or a retry at next_attempt_at), delivering, succeeded (a 2xx) or failed (3 ' +
        'attempts without a 2xx). The payload itself is the call record, served by GET /v1/calls/{call_id}. ' +
        'Scope agents:read; another account\u2019s agent is a 404.',
      params: AgentParams,
      toInput: byAgent,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the agent\u2019s deliveries, each with its attempts',
      errors: [401, 403, 404, 422],
    },
    scope: 'agents:read',
    input: ByAgent.extend(PageQuery.shape),
    contract: WEBHOOK.listDeliveries,
    toRequest: ({ id, ...page }) => ({ agent_id: id, ...page }),
  }),
  'webhooks.redeliver': rpcOperation({
    graphql: 'Mutation.redeliverWebhook',
    graphqlField: {
      type: 'WebhookDelivery!',
      description: "A new delivery of the same event to the agent's current webhook (CONFLICT without one).",
      idArg: 'agentId',
    },
    rest: {
      method: 'POST',
      url: '/v1/agents/:agent_id/webhook-deliveries/:delivery_id/redeliver',
      toInput: byAgent,
      tags,
      summary: 'Redeliver a webhook event',
      description:
        'Creates a new delivery of the same event: the same X-Service-Event-Id and byte-identical body, a new ' +
        'X-Service-Delivery-Id, sent to the agent\u2019s current webhook URL and signed with its current secret ' +
        '(so a fixed endpoint receives it), with 3 attempts of its own. Answers the new delivery, pending ' +
        '(redelivery_of names the original); its attempts appear in the log. 409 when the agent has no ' +
        'webhook_config. No body. Scope agents:write.',
      params: AgentParams.extend({ delivery_id: Uuid }),
      status: 201,
      answers: 'The new delivery, pending',
      errors: [401, 403, 404, 409, 422],
    },
    scope: 'agents:write',
    input: ByAgent.extend({ delivery_id: Uuid.describe('The delivery to send again') }),
    contract: WEBHOOK.redeliver,
    toRequest: ({ id, delivery_id }) => ({ agent_id: id, delivery_id }),
  }),
  'webhooks.redeliverFailed': rpcOperation({
    graphql: 'Mutation.redeliverFailedWebhooks',
    graphqlField: {
      type: 'BulkRedelivery!',
      description: 'Every event of the agent whose delivery failed in the range, delivered again once.',
      idArg: 'agentId',
      inputArg: { type: 'RedeliverFailedInput', description: 'Which failed deliveries.' },
    },
    graphqlArgs: ({ agentId, input }) => ({ ...present(snakeKeys(input)), id: agentId }),
    rest: {
      method: 'POST',
      url: '/v1/agents/:agent_id/webhook-deliveries/redeliver',
      toInput: byAgent,
      tags,
      summary: 'Redeliver failed webhook events in bulk',
      description:
        'Redelivers, as the single redeliver does (same X-Service-Event-Id and body, to the current URL and ' +
        'secret, 3 attempts of its own), every event of the agent whose delivery failed between `from` ' +
        `(inclusive) and \`to\` (exclusive, at most ${BULK_REDELIVER_RANGE_MAX_DAYS} days later), by the ` +
        'failed delivery’s created_at: one new delivery per event however often it failed, oldest first. ' +
        'Events delivered since, or already queued again (pending or delivering), and test events are skipped, ' +
        'so repeating the request never sends an event twice. At most `limit` ' +
        `(default and most ${BULK_REDELIVER_MAX}) per request: with has_more, send the same body again. ` +
        'Answers how many were queued and the new deliveries. 409 when the agent has no webhook_config. ' +
        'Scope agents:write.',
      params: AgentParams,
      body: BulkRedeliverBody,
      bodyExample: REQUEST_EXAMPLES.bulkRedeliver,
      status: 200,
      answers: 'How many deliveries were queued, and the new deliveries',
      errors: [401, 403, 404, 409, 422],
    },
    scope: 'agents:write',
    input: ByAgent.extend(BulkRedeliverShape).superRefine(boundedRange),
    contract: WEBHOOK.redeliverFailed,
    toRequest: ({ id, ...body }) => ({ agent_id: id, ...body }),
  }),
  'webhooks.sendTest': rpcOperation({
    graphql: 'Mutation.sendWebhookTest',
    graphqlField: {
      type: 'WebhookDelivery!',
      description:
        'A sample CALL_ENDED for this agent, sent to its webhook with test: true in data.metadata.',
      idArg: 'agentId',
    },
    rest: {
      method: 'POST',
      url: '/v1/agents/:agent_id/webhook-test',
      toInput: byAgent,
      tags,
      summary: 'Send a test webhook event',
      description:
        'Sends a sample CALL_ENDED built for this agent (its type and flows; a reserved fictional number; no ' +
        'recording) with `"test": true` in data.metadata, signed and retried like any delivery, even when the ' +
        'agent\u2019s webhook events exclude CALL_ENDED. Answers the new delivery (test: true). 409 when the ' +
        'agent has no webhook_config. No body. Scope agents:write.',
      params: AgentParams,
      status: 201,
      answers: 'The test delivery, pending',
      errors: [401, 403, 404, 409, 422],
    },
    scope: 'agents:write',
    input: ByAgent,
    contract: WEBHOOK.sendTest,
    toRequest: agentOf,
  }),
};
