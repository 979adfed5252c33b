import {
  AddDoNotCallBody,
  type CallContext,
  DO_NOT_CALL,
  DO_NOT_CALL_CHUNK,
  DoNotCallAdded,
  DoNotCallNumberRequest,
  PageQuery,
} from '@voice/shared';
import type { GatewayClient } from '../clients/gateway-client';
import { present, snakeKeys } from './graphql-args';
import { type Operation, rpcOperation, type Unnamed } from './operation';

const tags = ['Do-not-call list'];
const NOT_FOUND =
  'A number the account does not list is a 404 (DO_NOT_CALL_ENTRY_NOT_FOUND), whatever other accounts list.';
const SCOPES =
  'Reading takes calls:read, changing takes calls:write: the list governs which calls may be placed.';
const EFFECT =
  'A call to a listed number is refused (422 `DO_NOT_CALL` on `phone_number`) and a campaign contact on it is ' +
  '`skipped` (`do_not_call`), checked when the contact\u2019s turn to be dialed comes, so a number added after a ' +
  'campaign started is skipped too. A callee who asks not to be called again is added by the platform ' +
  '(source `opt_out`, with the call\u2019s id).';
const PATH = 'The number in the path is E.164, its `+` written as is or as `%2B`.';

/**
 * An add of any size (the body was validated whole, so a bad number stored nothing), as chunks of
 * DO_NOT_CALL_CHUNK numbers, one after another: each is one statement of the call service.
 */
async function addDoNotCall(
  client: GatewayClient,
  { numbers, ...rest }: AddDoNotCallBody,
  ctx: CallContext,
): Promise<DoNotCallAdded> {
  let added = 0;
  for (let from = 0; from < numbers.length; from += DO_NOT_CALL_CHUNK) {
    const chunk = numbers.slice(from, from + DO_NOT_CALL_CHUNK);
    added += (await client.call(DO_NOT_CALL.add, { ...rest, numbers: chunk }, ctx)).added;
  }
  return { added, already_listed: numbers.length - added };
}

/** The account's do-not-call list, which the call service keeps and checks at every placement. */
export const DO_NOT_CALL_OPERATIONS = {
  'doNotCall.list': rpcOperation({
    graphql: 'Query.doNotCallList',
    graphqlField: {
      type: 'DoNotCallPage!',
      description: "The account's do-not-call list, newest first.",
    },
    rest: {
      method: 'GET',
      url: '/v1/do-not-call',
      tags,
      summary: 'List do-not-call numbers',
      description: `Newest first, in the page wrapper; page on with \`next_cursor\`. ${EFFECT} ${SCOPES}`,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the account\u2019s do-not-call list',
      errors: [401, 403, 422],
    },
    scope: 'calls:read',
    input: PageQuery,
    contract: DO_NOT_CALL.list,
    toRequest: (input) => input,
  }),
  'doNotCall.get': rpcOperation({
    graphql: 'Query.doNotCallEntry',
    graphqlField: {
      type: 'DoNotCallEntry',
      description:
        'Whether the account lists a number: its entry; null (DO_NOT_CALL_ENTRY_NOT_FOUND in errors) when it does not.',
    },
    rest: {
      method: 'GET',
      url: '/v1/do-not-call/:number',
      tags,
      summary: 'Check a number',
      description: `Answers the number\u2019s entry when the account lists it. ${NOT_FOUND} ${PATH}`,
      params: DoNotCallNumberRequest,
      status: 200,
      answers: 'The number\u2019s entry',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:read',
    input: DoNotCallNumberRequest,
    contract: DO_NOT_CALL.get,
    toRequest: (input) => input,
  }),
  'doNotCall.add': {
    graphql: 'Mutation.addDoNotCall',
    graphqlField: {
      type: 'DoNotCallAdded!',
      description: 'Adds numbers to the do-not-call list (on any invalid number, none).',
      inputArg: { type: 'AddDoNotCallInput', description: 'The numbers to add.' },
    },
    graphqlArgs: ({ input }) => present(snakeKeys(input)),
    rest: {
      method: 'POST',
      url: '/v1/do-not-call',
      tags,
      summary: 'Add do-not-call numbers',
      description:
        'One number or up to 100,000 in one request, with one optional `reason` and `source` for all. Every ' +
        'number is checked first: one that is not E.164 is a 422 naming it, and nothing is added. A number ' +
        'listed already keeps its entry (adding is idempotent, so a request that failed midway, say for a ' +
        'database outage, is completed by sending it again): `already_listed` counts it. ' +
        `${EFFECT} ${SCOPES}`,
      body: AddDoNotCallBody,
      bodyExample: { numbers: ['+14155550123'], reason: 'Asked by email not to be called', source: 'api' },
      status: 200,
      answers: 'How many numbers were added and how many were listed already',
      errors: [401, 403, 413, 415, 422],
    },
    scope: 'calls:write',
    input: AddDoNotCallBody,
    reply: DoNotCallAdded,
    // Several bus calls (chunks under the bus's message limit), so not an rpcOperation.
    run: (deps, input, context) => addDoNotCall(deps.client, input, context),
  } satisfies Unnamed<Operation<typeof AddDoNotCallBody, DoNotCallAdded>>,
  'doNotCall.remove': rpcOperation({
    graphql: 'Mutation.removeDoNotCall',
    graphqlField: { type: 'Boolean!', description: 'Removes a number from the list; true once removed.' },
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    rest: {
      method: 'DELETE',
      url: '/v1/do-not-call/:number',
      tags,
      summary: 'Remove a do-not-call number',
      description: `Calls to the number may be placed again. ${NOT_FOUND} ${PATH}`,
      params: DoNotCallNumberRequest,
      status: 204,
      answers: 'Removed; no content',
      errors: [401, 403, 404, 422],
    },
    scope: 'calls:write',
    input: DoNotCallNumberRequest,
    contract: DO_NOT_CALL.remove,
    toRequest: (input) => input,
  }),
};
