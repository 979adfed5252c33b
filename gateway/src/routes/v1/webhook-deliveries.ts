import {
  BULK_REDELIVER_MAX,
  BULK_REDELIVER_RANGE_MAX_DAYS,
  BulkRedeliverBody,
  PageQuery,
  REQUEST_EXAMPLES,
  Uuid,
} from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { idFrom, type RpcRoute, registerRpcRoutes } from '../../http/rpc-route';
import { OPERATIONS } from '../../operations/catalogue';

const AgentParams = z.object({ agent_id: Uuid });
const tags = ['Webhooks'];
/** The agent in the path is the operation's `id`. */
const byAgent = idFrom('agent_id');

export const WEBHOOK_DELIVERY_ROUTES: RpcRoute[] = [
  {
    method: 'GET',
    url: '/v1/agents/:agent_id/webhook-deliveries',
    operation: OPERATIONS['agents.webhookDeliveries'],
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
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/webhook-deliveries/:delivery_id/redeliver',
    operation: OPERATIONS['webhooks.redeliver'],
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
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/webhook-deliveries/redeliver',
    operation: OPERATIONS['webhooks.redeliverFailed'],
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
  {
    method: 'POST',
    url: '/v1/agents/:agent_id/webhook-test',
    operation: OPERATIONS['webhooks.sendTest'],
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
];

export const webhookDeliveryRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  registerRpcRoutes(app, deps, WEBHOOK_DELIVERY_ROUTES);
};
