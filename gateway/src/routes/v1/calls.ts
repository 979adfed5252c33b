import { describeTestNumbers, ListCallsQuery, MakeCallBody, REQUEST_EXAMPLES, Uuid } from '@voice/shared';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { GatewayDeps } from '../../deps';
import { idFrom, type RpcRoute, registerRpcRoutes } from '../../http/rpc-route';
import { OPERATIONS } from '../../operations/catalogue';

const tags = ['Calls'];

export const CALL_ROUTES: RpcRoute[] = [
  {
    method: 'POST',
    url: '/v1/call',
    operation: OPERATIONS['calls.create'],
    tags,
    summary: 'Make a call',
    description:
      'Places an outbound call with an agent of the account (404 otherwise) and answers at once with the record in ' +
      '`initializing` once the call is stored. Calls are dialed in the order they were accepted, at most ' +
      '`CALL_DIALS_PER_SECOND` a second per call service instance (default 100, like a carrier trunk\u2019s ' +
      'calls-per-second): a burst is accepted at once and waits in `initializing` for its turn. The call then moves ' +
      'through ringing and in_progress to its outcome. Calls are simulated unless a real telephony provider is ' +
      'configured (GET /v1/health names it): the default simulated carrier dials no real telephone network, ' +
      'takes time like a real call (paced by SIM_TIME_SCALE) and ends with a full record whose `telephony.carrier` ' +
      `is \`simulated\`. Its test numbers pick the outcome by the dialed number\u2019s last four digits: ` +
      `${describeTestNumbers()}. Send an ` +
      '`Idempotency-Key` to make retries safe: a repeat with the same body returns the first response and dials ' +
      'nobody; the same key with another body is a 409. Keys are kept 24 hours per account.',
    body: MakeCallBody,
    bodyExample: REQUEST_EXAMPLES.makeCall,
    status: 201,
    answers: 'The call, stored and `initializing`',
    errors: [401, 403, 404, 409, 413, 415, 422],
  },
  {
    method: 'GET',
    url: '/v1/calls',
    operation: OPERATIONS['calls.list'],
    tags,
    summary: 'List calls',
    description:
      'Newest first, in the page wrapper. Filters: status, agent_id, campaign_id, from and to (ISO 8601, on ' +
      'created_at; from inclusive, to exclusive).',
    querystring: ListCallsQuery,
    status: 200,
    answers: 'A page of the account\u2019s calls',
    errors: [401, 403, 422],
  },
  {
    method: 'GET',
    url: '/v1/calls/:call_id',
    operation: OPERATIONS['calls.get'],
    tags,
    summary: 'Get a call',
    description: 'Another account\u2019s call is answered exactly like a missing one (404).',
    params: z.object({ call_id: Uuid }),
    toInput: idFrom('call_id'),
    status: 200,
    answers: 'The call record',
    errors: [401, 403, 404, 422],
  },
];

export const callRoutes: FastifyPluginAsync<GatewayDeps> = async (app, deps) => {
  registerRpcRoutes(app, deps, CALL_ROUTES);
};
