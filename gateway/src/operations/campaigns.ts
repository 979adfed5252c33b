import {
  AddContactsBody,
  CALL_STATS_SAMPLE,
  CAMPAIGN,
  Campaign,
  CampaignValidation,
  CONTACTS_MAX,
  ContactsAdded,
  CreateCampaignBody,
  DEFAULT_CALL_SECONDS,
  ListCampaignsQuery,
  ListContactsQuery,
  MAX_CONCURRENT_CALLS_MAX,
  REQUEST_EXAMPLES,
  UpdateCampaignBody,
  VALIDATION_SAMPLE_ROWS,
} from '@voice/shared';
import { z } from 'zod';
import { validateCampaign } from '../clients/campaign-validation';
import { addContacts, createCampaign } from '../clients/campaigns';
import { type Args, present, snakeKeys } from './graphql-args';
import { type Operation, rpcOperation, type Unnamed } from './operation';
import { ByCampaign, byCampaign, CampaignParams, campaignOf } from './resources';

const tags = ['Campaigns'];

/** A CreateCampaignInput as the operations take it: snake_case, nested inputs too. */
const campaignInput = ({ input }: Args) => present(snakeKeys(input, ['retryConfig', 'callingWindow']));
const NOT_FOUND = 'Another account\u2019s campaign is answered exactly like a missing one (404).';
const OPEN =
  'Allowed while the campaign is preparing, scheduled, running or paused; a completed or cancelled campaign is ' +
  'a 409 whose detail names its status.';
const STATES =
  'Statuses: scheduled -> running (at start_at) or cancelled; running <-> paused; running|paused -> cancelled; ' +
  'running -> completed once every contact is final. Any other move is a 409 whose detail names the current status.';

const CANCEL_TIMEOUT_MS = 30_000;

/** The operations' inputs: the body's fields beside the campaign's id, unknown keys refused as in the body. */
const UpdateCampaignInput = z
  .strictObject({ ...ByCampaign.shape, ...UpdateCampaignBody.shape })
  .refine(({ id: _id, ...changes }) => Object.keys(changes).length > 0, {
    message: 'must change at least one of name, max_concurrent_calls, retry_config, calling_window',
  })
  .describe(UpdateCampaignBody.description ?? '');
const AddContactsInput = z
  .strictObject({ ...ByCampaign.shape, ...AddContactsBody.shape })
  .describe(AddContactsBody.description ?? '');

/** A move of a campaign from one status to another, as its REST and GraphQL surfaces say. */
function transition<K extends 'pause' | 'resume' | 'cancel'>(
  kind: K,
  contract: (typeof CAMPAIGN)['pause' | 'resume' | 'cancel'],
  doc: { graphql: string; summary: string; description: string },
) {
  return rpcOperation({
    graphql: `Mutation.${kind}Campaign` as const,
    graphqlField: { type: 'Campaign!', description: doc.graphql },
    rest: {
      method: 'POST',
      url: `/v1/campaigns/:campaign_id/${kind}`,
      tags,
      summary: doc.summary,
      description: `${doc.description} ${STATES} ${NOT_FOUND}`,
      params: CampaignParams,
      toInput: byCampaign,
      status: 200,
      answers: 'The campaign in its new status',
      errors: [401, 403, 404, 409, 422],
    },
    scope: 'campaigns:write',
    input: ByCampaign,
    contract,
    toRequest: campaignOf,
    // A cancel marks every pending contact in one statement: up to 100,000 rows.
    ...(kind === 'cancel' ? { timeoutMs: CANCEL_TIMEOUT_MS } : {}),
  });
}

export const CAMPAIGN_OPERATIONS = {
  'campaigns.create': {
    graphql: 'Mutation.createCampaign',
    graphqlField: {
      type: 'Campaign!',
      description: 'Creates a campaign with its contacts; it starts at once or at startAt.',
      inputArg: { type: 'CreateCampaignInput', description: 'The campaign and its contacts.' },
    },
    graphqlArgs: campaignInput,
    rest: {
      method: 'POST',
      url: '/v1/campaigns',
      tags,
      summary: 'Create a campaign',
      description:
        `Required: name (1..100), agent_id (an agent of the account, else 404 as for POST /v1/call), phone_number ` +
        `(the source number, E.164) and contacts (1..${CONTACTS_MAX.toLocaleString('en')} flat objects). ` +
        `phone_column defaults to \`phone\`, max_concurrent_calls to 1 (at most ${MAX_CONCURRENT_CALLS_MAX}). ` +
        'A contact whose phone_column value is missing (absent, null or blank) is `skipped` with skip_reason ' +
        '`missing_phone`; one that is not an E.164 string (+ then 8 to 15 digits, the first not 0; surrounding ' +
        'whitespace ignored) `invalid_phone`; a number already earlier in the list `duplicate` (dialed once). None of ' +
        'these fail the request. Each call carries metadata.campaign_id and, as metadata.contact, the contact\u2019s ' +
        'other keys. retry_config (optional) dials a contact again interval_seconds after an outcome listed in ' +
        'on_statuses, up to max_retries more times. calling_window (optional) dials contacts only inside a window of ' +
        'local time (days, start, end; in each recipient\u2019s zone: its `timezone` key, else inferred from its ' +
        'number, else fallback_timezone; or in one IANA zone): a contact outside it waits, pending with next_attempt_at ' +
        'at the next opening, and so does a retry falling outside it (docs/api-guide.md, "Calling windows"). Without start_at the campaign is running at once; with it (in the ' +
        'future, else 422) it is scheduled until then. Never more than max_concurrent_calls of its calls are not ' +
        'final at any moment. Send an `Idempotency-Key` to make retries safe: a repeat with the same body returns ' +
        'the first response and creates and dials nothing again; the same key with another body is a 409.',
      body: CreateCampaignBody,
      bodyExample: REQUEST_EXAMPLES.createCampaign,
      status: 201,
      answers: 'The new campaign, running or scheduled, with its counts',
      errors: [401, 403, 404, 409, 413, 415, 422],
    },
    scope: 'campaigns:write',
    input: CreateCampaignBody,
    reply: Campaign,
    // Several bus calls (a staged upload), so not an rpcOperation; answers what the last, start, does.
    run: (deps, input, context) => createCampaign(deps.client, input, context),
    idempotent: true,
  } satisfies Unnamed<Operation<typeof CreateCampaignBody, Campaign>>,
  'campaigns.validate': {
    graphql: 'Mutation.validateCampaign',
    graphqlField: {
      type: 'CampaignValidation!',
      description:
        'A dry run of createCampaign: counts, the first rows of each problem, contacts per time zone and an ETA. Creates nothing.',
      inputArg: {
        type: 'CreateCampaignInput',
        description: 'The campaign and its contacts, as for createCampaign.',
      },
    },
    graphqlArgs: campaignInput,
    rest: {
      method: 'POST',
      url: '/v1/campaigns/validate',
      tags,
      summary: 'Validate a campaign (dry run)',
      description:
        'Takes the body of POST /v1/campaigns and answers what a create would do with it, creating nothing (no ' +
        'campaign, no calls). The same checks as create: a body create refuses is refused here with the same 422, ' +
        'another account’s agent is the same 404, the same 16 MiB and 100,000-contact bounds. ' +
        '`counts`: total; valid (would be dialed); missing_phone and invalid_phone (classified exactly as create ' +
        'does), invalid (their sum); duplicate (a repeat of a number earlier in the list); do_not_call (a number on ' +
        'the account’s do-not-call list now; a listed number repeated counts once here and as duplicate after). ' +
        `\`problems\`: the first ${VALIDATION_SAMPLE_ROWS} rows of each kind, by position, with the value. ` +
        '`time_zones`: the valid contacts per zone, read as calling_window reads them (a contact’s `timezone` ' +
        'key, else its number’s prefix, else fallback_timezone; a campaign-wide timezone for all). A number ' +
        'whose prefix spans several zones is listed under the zones joined by "," (e.g. a whole country code). ' +
        'Without a calling_window, zones are reported as if its timezone were `recipient` with fallback UTC. ' +
        '`eta`: a fluid model: max_concurrent_calls calls at once, each lasting the agent’s average (the mean ' +
        `of its last ${CALL_STATS_SAMPLE} ended calls, dial to end; ${DEFAULT_CALL_SECONDS} s when it has none), ` +
        'so cap / average contacts a second; with a calling_window, only while a contact’s window is open, ' +
        'time stepped from one window edge to the next with the open zones sharing the cap in proportion to what ' +
        'each has left; the cap is max_concurrent_calls, or the account’s own limit on calls at once when lower ' +
        '(its other calls not counted). It starts at start_at or now; retries are not counted (each contact one ' +
        'call). eta_seconds and estimated_completion_at are null beyond five years. Scope campaigns:write, as ' +
        'create: a dry run is the first step of a create.',
      body: CreateCampaignBody,
      bodyExample: REQUEST_EXAMPLES.createCampaign,
      status: 200,
      answers: 'What a create would dial and skip, per zone, and how long it would take',
      errors: [401, 403, 404, 413, 415, 422],
    },
    scope: 'campaigns:write',
    input: CreateCampaignBody,
    reply: CampaignValidation,
    // Not an rpcOperation: the contacts are lent to the campaign service on a subject of the gateway's.
    run: (deps, input, context) => validateCampaign(deps.client, input, context),
  } satisfies Unnamed<Operation<typeof CreateCampaignBody, CampaignValidation>>,
  'campaigns.list': rpcOperation({
    graphql: 'Query.campaigns',
    graphqlField: {
      type: 'CampaignPage!',
      description: "The account's campaigns, newest first, optionally one status only.",
    },
    rest: {
      method: 'GET',
      url: '/v1/campaigns',
      tags,
      summary: 'List campaigns',
      description: 'Newest first, in the page wrapper, each with its counts. Filter: status.',
      querystring: ListCampaignsQuery,
      status: 200,
      answers: 'A page of the account\u2019s campaigns',
      errors: [401, 403, 422],
    },
    scope: 'campaigns:read',
    input: ListCampaignsQuery,
    contract: CAMPAIGN.list,
    toRequest: (input) => input,
  }),
  'campaigns.get': rpcOperation({
    graphql: 'Query.campaign',
    graphqlField: {
      type: 'Campaign',
      description: 'One campaign; null (NOT_FOUND in errors) when the account has none with this id.',
    },
    rest: {
      method: 'GET',
      url: '/v1/campaigns/:campaign_id',
      tags,
      summary: 'Get a campaign',
      description:
        'With counts per contact state (total = every submitted contact, skipped ones included). Every change of ' +
        `status or counts is also published as an event for live subscriptions. ${NOT_FOUND}`,
      params: CampaignParams,
      toInput: byCampaign,
      status: 200,
      answers: 'The campaign, with its counts',
      errors: [401, 403, 404, 422],
    },
    scope: 'campaigns:read',
    input: ByCampaign,
    contract: CAMPAIGN.get,
    toRequest: campaignOf,
  }),
  'campaigns.pause': transition('pause', CAMPAIGN.pause, {
    graphql:
      'Pauses a running campaign: calls under way finish, no new ones start; refused (CONFLICT) from any other status.',
    summary: 'Pause a campaign',
    description:
      'Stops new dials; calls in progress finish and their outcomes are recorded (a retry they earn waits for ' +
      'resume). A paused campaign stays paused when its last call ends, even with every contact final.',
  }),
  'campaigns.resume': transition('resume', CAMPAIGN.resume, {
    graphql: 'Resumes a paused campaign.',
    summary: 'Resume a campaign',
    description: 'Dialing goes on where it stopped; a campaign with nothing left to dial completes at once.',
  }),
  'campaigns.cancel': transition('cancel', CAMPAIGN.cancel, {
    graphql: 'Cancels a campaign: contacts not yet called are cancelled.',
    summary: 'Cancel a campaign',
    description:
      'Stops new dials and marks every contact not yet dialed (or waiting for a retry) `cancelled`; calls in ' +
      'progress finish and their outcomes are recorded. A scheduled campaign can be cancelled too.',
  }),
  'campaigns.update': rpcOperation({
    graphql: 'Mutation.updateCampaign',
    graphqlField: {
      type: 'Campaign!',
      description:
        'Changes a campaign that has not finished: its name, cap or retry rules (only the fields sent); ' +
        'CONFLICT once completed or cancelled.',
      inputArg: { type: 'UpdateCampaignInput', description: 'The changes.' },
    },
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input, ['retryConfig', 'callingWindow']), id }),
    rest: {
      method: 'PATCH',
      url: '/v1/campaigns/:campaign_id',
      tags,
      summary: 'Change a campaign',
      description:
        'Partial: omitted fields keep their value; at least one of name, max_concurrent_calls (1..' +
        `${MAX_CONCURRENT_CALLS_MAX}), retry_config and calling_window is required, and unknown keys are refused ` +
        '(422). ' +
        'A lower max_concurrent_calls never hangs up a call: calls in flight finish, and no new call is dialed ' +
        'until fewer than the new cap are in flight. A higher one is used at once. retry_config replaces the ' +
        'rules whole (a full RetryConfig, its omitted fields taking their defaults) for the outcomes recorded ' +
        'from now on, `null` stops retrying; a contact already waiting for a retry keeps its time (and is ' +
        'dialed then). calling_window replaces the window (`null` removes it) at once: contacts never dialed ' +
        'that were waiting for an opening of the old window are judged by the new one at their next turn; a ' +
        'retry keeps its time and is judged by the new window then. Live subscriptions receive the campaign as ' +
        `changed. ${OPEN} ${NOT_FOUND}`,
      params: CampaignParams,
      body: UpdateCampaignBody,
      bodyExample: REQUEST_EXAMPLES.updateCampaign,
      // The body alone: a query string is no change.
      toInput: ({ params, body }) => ({ ...(body as UpdateCampaignBody), id: params.campaign_id }),
      status: 200,
      answers: 'The campaign as changed',
      errors: [401, 403, 404, 409, 413, 415, 422],
    },
    scope: 'campaigns:write',
    input: UpdateCampaignInput,
    contract: CAMPAIGN.update,
    toRequest: ({ id, ...changes }) => ({ campaign_id: id, changes }),
  }),
  'campaigns.addContacts': {
    graphql: 'Mutation.addCampaignContacts',
    graphqlField: {
      type: 'ContactsAdded!',
      description:
        'Adds contacts to a campaign that has not finished; they are dialed after those it holds. ' +
        'CONFLICT once completed or cancelled.',
      inputArg: { type: 'AddCampaignContactsInput', description: 'The contacts.' },
    },
    graphqlArgs: ({ id, input }) => ({ ...snakeKeys(input), id }),
    rest: {
      method: 'POST',
      url: '/v1/campaigns/:campaign_id/contacts',
      tags,
      summary: 'Add contacts to a campaign',
      description:
        'The contacts are read as a create reads them (the number under the campaign’s phone_column): ' +
        'each is stored, `skipped` with skip_reason `missing_phone`, `invalid_phone` or `duplicate` (a number ' +
        'the campaign already holds, in any state, or one earlier in this request), else pending. Their ' +
        'positions continue after the campaign’s last, and they are dialed after the contacts already ' +
        'waiting: at once on a running campaign, on resume on a paused one, at start on a scheduled one. The ' +
        `campaign holds at most ${CONTACTS_MAX.toLocaleString('en')} contacts in all: a request that would ` +
        'pass that is a 422 and adds nothing. All or nothing: a request that fails adds no contact. The answer ' +
        'counts what was added and skipped, with the campaign and its counts as they now are (also sent to ' +
        'live subscriptions). A completed campaign is not reopened: create another. Send an `Idempotency-Key` ' +
        `to make retries safe, as on create. ${OPEN} ${NOT_FOUND}`,
      params: CampaignParams,
      body: AddContactsBody,
      bodyExample: REQUEST_EXAMPLES.addCampaignContacts,
      toInput: ({ params, body }) => ({ ...(body as AddContactsBody), id: params.campaign_id }),
      status: 200,
      answers: 'What was added and skipped, and the campaign',
      errors: [401, 403, 404, 409, 413, 415, 422],
    },
    scope: 'campaigns:write',
    input: AddContactsInput,
    reply: ContactsAdded,
    // Several bus calls (a staged upload), so not an rpcOperation.
    run: (deps, { id, contacts }, context) => addContacts(deps.client, id, contacts, context),
    idempotent: true,
  } satisfies Unnamed<Operation<typeof AddContactsInput, ContactsAdded>>,
  'campaigns.contacts': rpcOperation({
    graphql: 'Campaign.contacts',
    graphqlField: {
      type: 'ContactPage!',
      description: "The campaign's contacts in list order, optionally one state only.",
    },
    rest: {
      method: 'GET',
      url: '/v1/campaigns/:campaign_id/contacts',
      tags,
      summary: 'List a campaign\u2019s contacts',
      description:
        'In submission order (position), in the page wrapper; filter: status (the contact state). Each contact ' +
        'with its state (pending, in_progress, a call outcome, skipped or cancelled), attempts, the ids of its calls ' +
        `and its skip_reason or failure_reason. ${NOT_FOUND}`,
      params: CampaignParams,
      toInput: byCampaign,
      querystring: ListContactsQuery,
      status: 200,
      answers: 'A page of the campaign\u2019s contacts',
      errors: [401, 403, 404, 422],
    },
    scope: 'campaigns:read',
    input: ByCampaign.extend(ListContactsQuery.shape),
    contract: CAMPAIGN.listContacts,
    toRequest: ({ id, ...query }) => ({ campaign_id: id, ...query }),
  }),
};
