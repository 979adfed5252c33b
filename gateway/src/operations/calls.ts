import {
  CALL,
  describeTestNumbers,
  ListCallsQuery,
  MakeCallBody,
  REQUEST_EXAMPLES,
  Uuid,
} from '@voice/shared';
import { z } from 'zod';
import { idFrom } from '../http/rpc-route';
import { withRecordingUrl, withRecordingUrls } from '../recordings/links';
import { snakeKeys } from './graphql-args';
import { rpcOperation } from './operation';
import { ByCall } from './resources';

const tags = ['Calls'];

/** Calls; their export and recordings are REST routes of their own (see catalogue.ts). */
export const CALL_OPERATIONS = {
  'calls.create': rpcOperation({
    graphql: 'Mutation.makeCall',
    graphqlField: {
      type: 'Call!',
      description: 'Places a call now; it proceeds on its own (follow it with callStatusChanged).',
      inputArg: { type: 'MakeCallInput', description: 'The call to place.' },
    },
    graphqlArgs: ({ input }) => snakeKeys(input),
    rest: {
      method: 'POST',
      url: '/v1/call',
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
        'nobody; the same key with another body is a 409. Keys are kept 24 hours per account. A number on the ' +
        'account\u2019s do-not-call list (GET /v1/do-not-call) is refused: 422 `DO_NOT_CALL` on `phone_number`.',
      body: MakeCallBody,
      bodyExample: REQUEST_EXAMPLES.makeCall,
      status: 201,
      answers: 'The call, stored and `initializing`',
      errors: [401, 403, 404, 409, 413, 415, 422],
    },
    scope: 'calls:write',
    input: MakeCallBody,
    contract: CALL.create,
    toRequest: (input) => input,
    transform: (call, { recordings }) => withRecordingUrl(call, recordings),
    idempotent: true,
  }),
  'calls.list': rpcOperation({
    graphql: 'Query.calls',
    graphqlField: {
      type: 'CallPage!',
      description: "The account's calls, newest first, optionally filtered.",
    },
    rest: {
      method: 'GET',
      url: '/v1/calls',
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
    scope: 'calls:read',
    input: ListCallsQuery,
    contract: CALL.list,
    toRequest: (input) => input,
    transform: (page, { recordings }) => withRecordingUrls(page, recordings),
  }),
  'calls.get': rpcOperation({
    graphql: 'Query.call',
    graphqlField: {
      type: 'Call',
      description: 'One call; null (NOT_FOUND in errors) when the account has none with this id.',
    },
    rest: {
      method: 'GET',
      url: '/v1/calls/:call_id',
      tags,
      summary: 'Get a call',
      description: 'Another account\u2019s call is answered exactly like a missing one (404).',
      params: z.object({ call_id: Uuid }),
      toInput: idFrom('call_id'),
      status: 200,
      answers: 'The call record',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:read',
    input: ByCall,
    contract: CALL.get,
    toRequest: ({ id }) => ({ call_id: id }),
    transform: (call, { recordings }) => withRecordingUrl(call, recordings),
  }),
};
