import { z } from 'zod';
import { AccountLoad, MaxConcurrentCalls } from './account';
import {
  Agent,
  AgentPrompt,
  AgentSnapshot,
  CheckAgentSettingsReply,
  CheckAgentSettingsRequest,
  CreateAgentBody,
  PromptVersion,
  PromptVersionStatus,
  SaveInstructionsBody,
  SavePromptVersionBody,
  UpdateAgentBody,
  WebhookEventKind,
} from './agent';
import {
  Call,
  ExportChunk,
  ExportChunkRequest,
  ListCallsQuery,
  MakeCallBody,
  RecordingChunk,
  RecordingChunkRequest,
  RecordingInfo,
} from './call';
import {
  AddContactsRequest,
  Campaign,
  CampaignContact,
  CampaignSettings,
  CommitContactsRequest,
  ContactsAdded,
  DiscardContactsRequest,
  ListCampaignsQuery,
  ListContactsQuery,
  StageContactsRequest,
  StartCampaignRequest,
  UpdateCampaignRequest,
} from './campaign';
import { AgentCallStats, CampaignValidation, ValidateCampaignRequest } from './campaign-validation';
import { DateTime, E164, Page, PageQuery, Uuid } from './common';
import { AgentType, AgentTypesRequest, AiModel, Industry, Language, Voice } from './discovery';
import {
  AddDoNotCallChunk,
  CheckDoNotCallChunk,
  DoNotCallAdded,
  DoNotCallEntry,
  DoNotCallListed,
  DoNotCallNumberRequest,
} from './do-not-call';
import { rpc } from './rpc-contract';
import {
  CreateSipTrunkBody,
  SipTrunk,
  TrunkHealthSummary,
  TrunkRoute,
  UpdateSipTrunkBody,
} from './sip-trunks';
import { TelephonyProviderInfo } from './telephony';
import { SipDialReply, SipDialRequest, SipHangupReply, SipHangupRequest } from './telephony-calls';
import { BulkRedeliverShape, BulkRedelivery, boundedRange, WebhookDelivery } from './webhook';
import {
  CreateWebhookEndpointBody,
  EndpointDelivery,
  SendEndpointTestShape,
  UpdateWebhookEndpointBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhook-endpoints';

/** The services that answer on the bus; each name is also its queue group and subject domain. */
export const SERVICE_NAMES = ['agent', 'call', 'campaign', 'webhook', 'telephony'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const Empty = z.object({});

export const HealthReply = z.object({
  service: z.string(),
  status: z.enum(['ok', 'degraded']),
  instance: z.string(),
  uptime_seconds: z.number(),
  checks: z.record(z.string(), z.enum(['ok', 'failing'])),
  /** The call service's: the telephony provider it dials through. */
  telephony: TelephonyProviderInfo.optional(),
  /** The telephony service's: its trunks by their latest keep-alive. */
  trunks: TrunkHealthSummary.optional(),
});
export type HealthReply = z.infer<typeof HealthReply>;

const healthOf = (service: ServiceName) => rpc(`${service}.health`, Empty, HealthReply);

export const HEALTH = {
  agent: healthOf('agent'),
  call: healthOf('call'),
  campaign: healthOf('campaign'),
  webhook: healthOf('webhook'),
  telephony: healthOf('telephony'),
} as const satisfies Record<ServiceName, unknown>;

/** Public catalogue, served by the agent service. */
export const DISCOVERY = {
  listIndustries: rpc('discovery.list_industries', Empty, z.array(Industry)),
  listAgentTypes: rpc('discovery.list_agent_types', AgentTypesRequest, z.array(AgentType)),
  listVoices: rpc('discovery.list_voices', Empty, z.array(Voice)),
  listLanguages: rpc('discovery.list_languages', Empty, z.array(Language)),
  listModels: rpc('discovery.list_models', Empty, z.array(AiModel)),
} as const;

const AgentIdRequest = z.object({ agent_id: Uuid });
export const AGENT_BATCH_MAX = 100;
const VersionRequest = z.object({ agent_id: Uuid, version_id: Uuid });
const Deleted = z.object({ deleted: z.literal(true) });

/** Account-scoped: the account comes from the `x-account-id` header, never the payload. */
export const AGENT = {
  create: rpc('agent.create', CreateAgentBody, Agent),
  get: rpc('agent.get', AgentIdRequest, Agent),
  /** Several agents of the account in one request (GraphQL batches Call.agent); missing ids are left out. */
  getMany: rpc(
    'agent.get_many',
    z.object({ agent_ids: z.array(Uuid).min(1).max(AGENT_BATCH_MAX) }),
    z.array(Agent),
  ),
  list: rpc('agent.list', PageQuery, Page(Agent)),
  update: rpc('agent.update', AgentIdRequest.extend({ changes: UpdateAgentBody }), Agent),
  delete: rpc('agent.delete', AgentIdRequest, Deleted),
  getPrompt: rpc('agent.get_prompt', AgentIdRequest, AgentPrompt),
  saveInstructions: rpc(
    'agent.save_instructions',
    AgentIdRequest.extend(SaveInstructionsBody.shape),
    AgentPrompt,
  ),
  listPromptVersions: rpc(
    'agent.list_prompt_versions',
    AgentIdRequest.extend(PageQuery.shape),
    Page(PromptVersion),
  ),
  savePromptVersion: rpc(
    'agent.save_prompt_version',
    AgentIdRequest.extend(SavePromptVersionBody.shape),
    PromptVersion,
  ),
  promptVersionStatus: rpc('agent.prompt_version_status', AgentIdRequest, PromptVersionStatus),
  restorePromptVersion: rpc('agent.restore_prompt_version', VersionRequest, Agent),
  deletePromptVersion: rpc('agent.delete_prompt_version', VersionRequest, Deleted),
  /** Internal: catalogue and webhook URL problems of a body that failed its schema (one 422 for all). */
  checkSettings: rpc('agent.check_settings', CheckAgentSettingsRequest, CheckAgentSettingsReply),
  /** Internal: the call service's copy of an agent at dial time. */
  snapshot: rpc('agent.snapshot', AgentIdRequest, AgentSnapshot),
  /** Internal: where the webhook service sends an agent's events (secret included); null = none. */
  webhookTarget: rpc(
    'agent.webhook_target',
    AgentIdRequest,
    z
      .object({ url: z.string(), events: z.array(WebhookEventKind), secret: z.string().nullable() })
      .nullable(),
  ),
} as const;

export const CALL = {
  /**
   * `campaign_id` and `id` are set by the campaign service only; the REST body cannot carry them.
   * With `id`, placing is idempotent: a call with that id in the account is returned as it is and
   * nobody is dialed again (the campaign service re-sends a placement it could not confirm).
   */
  create: rpc(
    'call.create',
    MakeCallBody.extend({ campaign_id: Uuid.optional(), id: Uuid.optional() }),
    Call,
  ),
  get: rpc('call.get', z.object({ call_id: Uuid }), Call),
  list: rpc('call.list', ListCallsQuery, Page(Call)),
  /** One chunk of an export: keyset-paged, so each chunk is stateless and memory stays constant. */
  exportChunk: rpc('call.export_chunk', ExportChunkRequest, ExportChunk),
  /** Internal, unscoped: only the gateway calls these, after verifying a signed recording link. */
  recordingInfo: rpc('call.recording_info', z.object({ call_id: Uuid }), RecordingInfo),
  recordingChunk: rpc('call.recording_chunk', RecordingChunkRequest, RecordingChunk),
  /**
   * Internal, unscoped: the gateway's admin routes set an account's concurrent-call limit (its
   * effective number, plan default resolved). Idempotent; `changed_at` orders pushes, so an older
   * one arriving late changes nothing (`applied: false`).
   */
  setAccountLimit: rpc(
    'call.set_account_limit',
    z.object({ account_id: Uuid, max_concurrent_calls: MaxConcurrentCalls, changed_at: DateTime }),
    z.object({ account_id: Uuid, max_concurrent_calls: z.number().int(), applied: z.boolean() }),
  ),
  /** Account-scoped: the account's limit and its calls dialed and waiting now (GET /v1/me). */
  accountLoad: rpc('call.account_load', Empty, AccountLoad),
  /** Account-scoped: how long the agent's latest ended calls lasted (a campaign dry run's ETA). */
  agentCallStats: rpc('call.agent_call_stats', AgentIdRequest, AgentCallStats),
} as const;

/**
 * Account-scoped, served by the call service, which refuses a call to a listed number (DO_NOT_CALL,
 * 422): the account's do-not-call list. Another account's entry is not found.
 */
export const DO_NOT_CALL = {
  /** One chunk of an add, stored in one statement (all of it or none). */
  add: rpc('do_not_call.add', AddDoNotCallChunk, DoNotCallAdded),
  list: rpc('do_not_call.list', PageQuery, Page(DoNotCallEntry)),
  get: rpc('do_not_call.get', DoNotCallNumberRequest, DoNotCallEntry),
  remove: rpc('do_not_call.remove', DoNotCallNumberRequest, Deleted),
  /** Which of up to DO_NOT_CALL_CHUNK numbers are listed: one indexed statement, not one per number. */
  checkMany: rpc('do_not_call.check_many', CheckDoNotCallChunk, DoNotCallListed),
} as const;

const CampaignIdRequest = z.object({ campaign_id: Uuid });

/**
 * Account-scoped. A create is staged so that no bus message outgrows NATS's payload limit whatever
 * the contact list weighs, and no step's work grows with it: `create` stores a draft (never listed,
 * swept if abandoned), `addContacts` takes the contacts in size-bounded chunks, `start` checks them
 * all arrived and answers the campaign after at most one bounded batch of its preparation
 * (`preparing` while the service's background loop does the rest), `discard` drops a draft whose
 * create failed midway.
 */
export const CAMPAIGN = {
  create: rpc('campaign.create', CampaignSettings, z.object({ campaign_id: Uuid })),
  addContacts: rpc('campaign.add_contacts', AddContactsRequest, z.object({ stored: z.number().int() })),
  start: rpc('campaign.start', StartCampaignRequest, Campaign),
  discard: rpc('campaign.discard', CampaignIdRequest, z.object({ discarded: z.boolean() })),
  get: rpc('campaign.get', CampaignIdRequest, Campaign),
  list: rpc('campaign.list', ListCampaignsQuery, Page(Campaign)),
  pause: rpc('campaign.pause', CampaignIdRequest, Campaign),
  resume: rpc('campaign.resume', CampaignIdRequest, Campaign),
  cancel: rpc('campaign.cancel', CampaignIdRequest, Campaign),
  update: rpc('campaign.update', UpdateCampaignRequest, Campaign),
  /** Contacts added to a started campaign: chunks held apart, then moved in at once (or discarded). */
  stageContacts: rpc('campaign.stage_contacts', StageContactsRequest, z.object({ stored: z.number().int() })),
  commitContacts: rpc('campaign.commit_contacts', CommitContactsRequest, ContactsAdded),
  discardContacts: rpc(
    'campaign.discard_contacts',
    DiscardContactsRequest,
    z.object({ discarded: z.number().int() }),
  ),
  listContacts: rpc(
    'campaign.list_contacts',
    CampaignIdRequest.extend(ListContactsQuery.shape),
    Page(CampaignContact),
  ),
  /**
   * A dry run of a create: nothing is stored. The contacts are fetched from the gateway's
   * `source` subject (see ValidateCampaignRequest), so no request message grows with the list.
   */
  validate: rpc('campaign.validate', ValidateCampaignRequest, CampaignValidation),
} as const;

export const WEBHOOK = {
  listDeliveries: rpc(
    'webhook.list_deliveries',
    AgentIdRequest.extend(PageQuery.shape),
    Page(WebhookDelivery),
  ),
  redeliver: rpc('webhook.redeliver', AgentIdRequest.extend({ delivery_id: Uuid }), WebhookDelivery),
  /** The agent's failed deliveries in a time range sent again, one new delivery per event. */
  redeliverFailed: rpc(
    'webhook.redeliver_failed',
    AgentIdRequest.extend(BulkRedeliverShape).superRefine(boundedRange),
    BulkRedelivery,
  ),
  sendTest: rpc('webhook.send_test', AgentIdRequest, WebhookDelivery),
} as const;

const EndpointIdRequest = z.object({ endpoint_id: Uuid });

/**
 * Account-scoped, served by the webhook service: the account's webhook endpoints (another
 * account's endpoint is not found), their secrets (returned by create and rotateSecret only) and
 * their delivery log.
 */
export const WEBHOOK_ENDPOINT = {
  create: rpc('webhook.endpoint_create', CreateWebhookEndpointBody, WebhookEndpointWithSecret),
  list: rpc('webhook.endpoint_list', PageQuery, Page(WebhookEndpoint)),
  get: rpc('webhook.endpoint_get', EndpointIdRequest, WebhookEndpoint),
  update: rpc(
    'webhook.endpoint_update',
    EndpointIdRequest.extend({ changes: UpdateWebhookEndpointBody }),
    WebhookEndpoint,
  ),
  delete: rpc('webhook.endpoint_delete', EndpointIdRequest, Deleted),
  rotateSecret: rpc('webhook.endpoint_rotate_secret', EndpointIdRequest, WebhookEndpointWithSecret),
  listDeliveries: rpc(
    'webhook.endpoint_list_deliveries',
    EndpointIdRequest.extend(PageQuery.shape),
    Page(EndpointDelivery),
  ),
  redeliver: rpc(
    'webhook.endpoint_redeliver',
    EndpointIdRequest.extend({ delivery_id: Uuid }),
    EndpointDelivery,
  ),
  /** The endpoint's failed deliveries in a time range sent again, one new delivery per event. */
  redeliverFailed: rpc(
    'webhook.endpoint_redeliver_failed',
    EndpointIdRequest.extend(BulkRedeliverShape).superRefine(boundedRange),
    BulkRedelivery,
  ),
  sendTest: rpc(
    'webhook.endpoint_send_test',
    EndpointIdRequest.extend(SendEndpointTestShape),
    EndpointDelivery,
  ),
} as const;

const TrunkIdRequest = z.object({ trunk_id: Uuid });

/**
 * Account-scoped, served by the telephony service: the account's SIP trunks (another account's
 * trunk is not found) and `route`, which names the carrier a call from a source number goes out
 * through. With SIMULATED_CARRIER=off a number no trunk carries is refused (NO_SIP_TRUNK, 422).
 */
export const TELEPHONY = {
  createTrunk: rpc('telephony.create_trunk', CreateSipTrunkBody, SipTrunk),
  getTrunk: rpc('telephony.get_trunk', TrunkIdRequest, SipTrunk),
  listTrunks: rpc('telephony.list_trunks', PageQuery, Page(SipTrunk)),
  updateTrunk: rpc(
    'telephony.update_trunk',
    TrunkIdRequest.extend({ changes: UpdateSipTrunkBody }),
    SipTrunk,
  ),
  deleteTrunk: rpc('telephony.delete_trunk', TrunkIdRequest, Deleted),
  route: rpc('telephony.route', z.object({ source_number: E164 }), TrunkRoute),
  /** Dials a call over its trunk; at most once per call id. Progress: EVENTS.sipCallProgress. */
  dial: rpc('telephony.dial', SipDialRequest, SipDialReply),
  /** Ends a call now (CANCEL before the answer, BYE after), wherever it is carried. */
  hangup: rpc('telephony.hangup', SipHangupRequest, SipHangupReply),
} as const;
