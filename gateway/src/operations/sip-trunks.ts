import {
  CreateSipTrunkBody,
  PageQuery,
  REQUEST_EXAMPLES,
  TELEPHONY,
  UpdateSipTrunkBody,
} from '@voice/shared';
import { present, snakeKeys } from './graphql-args';
import { rpcOperation } from './operation';
import { ByTrunk, byTrunk, TrunkParams, trunkOf } from './resources';

const tags = ['SIP trunks'];
const NOT_FOUND = 'Another account\u2019s trunk is answered exactly like a missing one (404).';
const PASSWORD = 'The password is write-only: no answer carries it; `has_password` says whether one is set.';
const ROUTING =
  'A call goes out through the trunk whose `numbers` list its source_number, else through the ' +
  'account\u2019s default trunk, else through the simulated carrier.';
const URI =
  'A `uri` other than sip:host[:port][;transport=udp|tcp] (no user part, no other parameters) is a 422 ' +
  'naming the problem, as is a number another trunk of the account already lists.';

/** The account's SIP trunks, which the telephony service keeps: its calls go out through them. */
export const SIP_TRUNK_OPERATIONS = {
  'sipTrunks.list': rpcOperation({
    graphql: 'Query.sipTrunks',
    graphqlField: { type: 'SipTrunkPage!', description: "The account's SIP trunks, newest first." },
    rest: {
      method: 'GET',
      url: '/v1/sip-trunks',
      tags,
      summary: 'List SIP trunks',
      description: `Newest first, in the page wrapper. ${PASSWORD}`,
      querystring: PageQuery,
      status: 200,
      answers: 'A page of the account\u2019s SIP trunks',
      errors: [401, 403, 422],
    },
    scope: 'trunks:read',
    input: PageQuery,
    contract: TELEPHONY.listTrunks,
    toRequest: (input) => input,
  }),
  'sipTrunks.get': rpcOperation({
    graphql: 'Query.sipTrunk',
    graphqlField: {
      type: 'SipTrunk',
      description:
        'One SIP trunk; null (SIP_TRUNK_NOT_FOUND in errors) when the account has none with this id.',
    },
    rest: {
      method: 'GET',
      url: '/v1/sip-trunks/:trunk_id',
      tags,
      summary: 'Get a SIP trunk',
      description: `${PASSWORD} ${NOT_FOUND}`,
      params: TrunkParams,
      toInput: byTrunk,
      status: 200,
      answers: 'The SIP trunk',
      errors: [401, 403, 404, 422],
    },
    scope: 'trunks:read',
    input: ByTrunk,
    contract: TELEPHONY.getTrunk,
    toRequest: trunkOf,
  }),
  'sipTrunks.create': rpcOperation({
    graphql: 'Mutation.createSipTrunk',
    graphqlField: {
      type: 'SipTrunk!',
      description: 'Adds a SIP trunk; with isDefault it becomes the default in place of the current one.',
      inputArg: { type: 'CreateSipTrunkInput', description: 'The trunk to add.' },
    },
    // Null and absent mean the same on a new trunk: the field's default.
    graphqlArgs: ({ input }) => present(snakeKeys(input)),
    rest: {
      method: 'POST',
      url: '/v1/sip-trunks',
      tags,
      summary: 'Add a SIP trunk',
      description:
        'Required: name and uri. A password needs a username (digest authentication answers with both). ' +
        '`is_default: true` makes it the account\u2019s default trunk in place of the current one. ' +
        `${ROUTING} ${URI} ${PASSWORD}`,
      body: CreateSipTrunkBody,
      bodyExample: REQUEST_EXAMPLES.createSipTrunk,
      status: 201,
      answers: 'The new SIP trunk',
      errors: [401, 403, 413, 415, 422],
    },
    scope: 'trunks:write',
    input: CreateSipTrunkBody,
    contract: TELEPHONY.createTrunk,
    toRequest: (input) => input,
  }),
  'sipTrunks.update': rpcOperation({
    graphql: 'Mutation.updateSipTrunk',
    graphqlField: {
      type: 'SipTrunk!',
      description: 'Changes a SIP trunk: only the fields sent.',
      inputArg: { type: 'UpdateSipTrunkInput', description: 'The changes.' },
    },
    // Null stays null: it removes the username, the password or a limit.
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input), id }),
    rest: {
      method: 'PATCH',
      url: '/v1/sip-trunks/:trunk_id',
      tags,
      summary: 'Update a SIP trunk',
      description:
        'Partial: omitted fields keep their value. An omitted password keeps the stored one; `password: null` ' +
        'removes it; `username: null` needs the password removed too. `numbers` replaces the whole list. ' +
        '`is_default: true` makes it the default in place of the current one. ' +
        `${URI} ${PASSWORD} ${NOT_FOUND}`,
      params: TrunkParams,
      body: UpdateSipTrunkBody,
      bodyExample: REQUEST_EXAMPLES.updateSipTrunk,
      // The body alone: a query string is no change.
      toInput: ({ params, body }) => ({ ...(body as UpdateSipTrunkBody), id: params.trunk_id }),
      status: 200,
      answers: 'The SIP trunk as updated',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'trunks:write',
    // extend() keeps the fields' descriptions, not the object's: GraphQL's UpdateSipTrunkInput shows it.
    input: ByTrunk.extend(UpdateSipTrunkBody.shape).describe(UpdateSipTrunkBody.description ?? ''),
    contract: TELEPHONY.updateTrunk,
    toRequest: ({ id, ...changes }) => ({ trunk_id: id, changes }),
  }),
  'sipTrunks.delete': rpcOperation({
    graphql: 'Mutation.deleteSipTrunk',
    graphqlField: { type: 'Boolean!', description: 'Removes a SIP trunk; true once removed.' },
    graphqlResult: (answer: { deleted: boolean }) => answer.deleted,
    rest: {
      method: 'DELETE',
      url: '/v1/sip-trunks/:trunk_id',
      tags,
      summary: 'Delete a SIP trunk',
      description:
        'Calls from its numbers then go out through the default trunk (or the simulated carrier); calls ' +
        `already placed through it keep its id in their record. ${NOT_FOUND}`,
      params: TrunkParams,
      toInput: byTrunk,
      status: 204,
      answers: 'Deleted; no content',
      errors: [401, 403, 404, 422],
    },
    scope: 'trunks:write',
    input: ByTrunk,
    contract: TELEPHONY.deleteTrunk,
    toRequest: trunkOf,
  }),
};
