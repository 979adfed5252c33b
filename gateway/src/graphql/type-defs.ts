/**
 * The GraphQL schema: the REST resources with camelCase fields and UPPER_CASE enums. Every field is
 * resolved from the same records REST returns (snake_case keys mapped by the default resolver).
 */
export const typeDefs = /* GraphQL */ `
  "ISO 8601 date-time with offset, e.g. 2026-11-22T10:00:00.000Z."
  scalar DateTime
  "Any JSON value (metadata, contact rows, collected values)."
  scalar JSON

  enum CallStatus { INITIALIZING RINGING IN_PROGRESS COMPLETED NO_ANSWER FAILED VOICEMAIL BUSY }
  enum CampaignStatus { PREPARING SCHEDULED RUNNING PAUSED COMPLETED CANCELLED }
  enum ContactState { PENDING IN_PROGRESS COMPLETED NO_ANSWER FAILED VOICEMAIL BUSY SKIPPED CANCELLED }
  enum RetryableStatus { NO_ANSWER BUSY VOICEMAIL FAILED }
  enum Sentiment { POSITIVE NEUTRAL NEGATIVE }
  "SIMULATED: the built-in simulated carrier, no real telephone network was dialed. SIP: a SIP trunk."
  enum Carrier { SIMULATED SIP }
  enum PromptSource { GENERATED CUSTOM }
  enum DeliveryStatus { PENDING DELIVERING SUCCEEDED FAILED }
  enum WebhookEvent { CALL_ENDED }
  enum AgentTypeCategory { GENERAL INDUSTRY }
  enum DetailFieldType { STRING NUMBER BOOLEAN DATE DATETIME PHONE EMAIL ENUM }
  enum VoiceGender { FEMALE MALE NEUTRAL }
  "Why a call ended."
  enum CallEndReason {
    CONVERSATION_COMPLETED CUSTOMER_HUNG_UP AGENT_HUNG_UP NO_ANSWER BUSY VOICEMAIL_DETECTED CARRIER_ERROR
    INVALID_NUMBER TIMEOUT CANCELLED
  }
  enum EndedBy { AGENT USER SYSTEM CARRIER }
  enum TranscriptRole { AGENT USER }
  enum DetailsCollectionStatus { COMPLETE PARTIAL NONE }
  enum SkipReason { MISSING_PHONE INVALID_PHONE DUPLICATE }
  enum Plan { FREE PRO ENTERPRISE }
  "An API key's permission: AGENTS_READ is agents:read."
  enum Scope { AGENTS_READ AGENTS_WRITE CALLS_READ CALLS_WRITE CAMPAIGNS_READ CAMPAIGNS_WRITE }

  type Industry { id: ID! name: String! description: String! agentTypeCount: Int! }
  type CollectedDetail { name: String! type: DetailFieldType! description: String! required: Boolean! options: [String!] }
  type AgentType {
    id: ID! name: String! description: String! category: AgentTypeCategory! industry: String
    goal: String! collects: [CollectedDetail!]!
  }
  type Voice {
    id: ID! name: String! gender: VoiceGender! accent: String! languages: [String!]! provider: String! default: Boolean!
  }
  type Language { code: ID! name: String! nativeName: String! }
  "A model an agent can run on (beyond the spec)."
  type AiModel { id: ID! name: String! provider: String! description: String! default: Boolean! }
  "The calling API key: its account and scopes (beyond the spec)."
  type Me { account: MeAccount! key: MeKey! }
  type MeAccount { id: ID! name: String! plan: Plan! rateLimitPerMinute: Int! }
  type MeKey { id: ID! scopes: [Scope!]! }

  type WebhookConfig { url: String! events: [WebhookEvent!]! hasSecret: Boolean! }
  type Agent {
    id: ID! name: String! agentType: String! industry: String language: String! voice: String! aiModel: String!
    startFlow: String! endFlow: String! description: String prompt: String! promptSource: PromptSource!
    activePromptVersionId: ID webhookConfig: WebhookConfig createdAt: DateTime! updatedAt: DateTime!
    "The agent's prompt versions, newest first."
    promptVersions(page: Int = 1, pageSize: Int = 20): PromptVersionPage!
    "Webhook deliveries of this agent's events, newest first, each with its attempts."
    webhookDeliveries(page: Int = 1, pageSize: Int = 20): WebhookDeliveryPage!
    "The active prompt version, whether the current prompt differs from it, and how many versions exist."
    promptVersionStatus: PromptVersionStatus!
  }
  type PromptVersionStatus { agentId: ID! activeVersionId: ID currentDiffersFromActive: Boolean! count: Int! }
  type PromptVersion {
    id: ID! agentId: ID! version: Int! label: String prompt: String! promptSource: PromptSource!
    isActive: Boolean! createdAt: DateTime!
  }
  type AgentPrompt { agentId: ID! prompt: String! promptSource: PromptSource! activePromptVersionId: ID }

  type TranscriptEntry { role: TranscriptRole! content: String! timestamp: String! }
  type DetailsCollection { status: DetailsCollectionStatus! score: Float! collectedDetails: [String!]! collectedValues: JSON! }
  "How a call was carried. The simulated carrier answers as a real network would (see the REST CallTelephony schema)."
  type TelephonyInfo {
    carrier: Carrier!
    "The SIP trunk the call went out through; null for the simulated carrier."
    trunkId: ID
    "Final SIP response code to the INVITE (200 once answered, 486 busy, 480 no answer, 503 failed, 487 cancelled before the answer); null while none has arrived or when the call ended without one."
    sipCode: Int
    "Reason phrase of that response; null with sipCode."
    sipReason: String
  }
  type Call {
    id: ID! sessionId: ID! status: CallStatus! phoneNumber: String! sourceNumber: String! direction: String!
    agentId: ID! agentType: String! userId: String! campaignId: ID metadata: JSON
    "The agent as it is now (batched); null once it was deleted. agentName keeps the name it called with."
    agent: Agent
    agentName: String!
    createdAt: DateTime! startedAt: DateTime answeredAt: DateTime
    "When the call ended. Every time of a call is the wall-clock time it happened at, never in the future (whatever SIM_TIME_SCALE is)."
    endedAt: DateTime
    "Wall-clock seconds from answeredAt to endedAt, per started second; 0 if never answered. Costs follow it."
    duration: Int! durationSeconds: Int! durationMinutes: Float!
    transcript: [TranscriptEntry!]!
    "Signed link to the recording (WAV), fresh on every read; empty string when the call produced no audio."
    recordingUrl: String!
    "NEUTRAL when there was no conversation (not answered, voicemail, or not ended yet)."
    sentiment: Sentiment!
    callSummary: String callEndReason: CallEndReason endedBy: EndedBy detailsCollection: DetailsCollection
    aiCost: Float! telephonyCost: Float! totalCost: Float! costCurrency: String!
    promptVersionId: ID promptHash: String!
    telephony: TelephonyInfo!
  }

  type RetryConfig { onStatuses: [RetryableStatus!]! maxRetries: Int! intervalSeconds: Int! }
  type CampaignCounts {
    total: Int! pending: Int! inProgress: Int! completed: Int! noAnswer: Int! failed: Int! voicemail: Int!
    busy: Int! skipped: Int! cancelled: Int!
  }
  type Campaign {
    id: ID! name: String! agentId: ID! agent: Agent phoneNumber: String! phoneColumn: String!
    maxConcurrentCalls: Int! retryConfig: RetryConfig status: CampaignStatus! counts: CampaignCounts!
    startAt: DateTime createdAt: DateTime! startedAt: DateTime finishedAt: DateTime
    "The campaign's contacts in list order, optionally one state only."
    contacts(page: Int = 1, pageSize: Int = 20, status: ContactState): ContactPage!
  }
  type Contact {
    id: ID! campaignId: ID! position: Int! phoneNumber: String data: JSON! state: ContactState! attempts: Int!
    callIds: [ID!]! skipReason: SkipReason
    "Why the contact failed without a call outcome (e.g. its agent was deleted)."
    failureReason: String
    nextAttemptAt: DateTime updatedAt: DateTime!
  }

  type DeliveryAttempt {
    attempt: Int! startedAt: DateTime! durationMs: Int! statusCode: Int error: String succeeded: Boolean!
  }
  type WebhookDelivery {
    id: ID! agentId: ID! eventId: ID! event: WebhookEvent! sessionId: String! url: String!
    status: DeliveryStatus! attempts: [DeliveryAttempt!]! nextAttemptAt: DateTime redeliveryOf: ID
    test: Boolean! createdAt: DateTime! completedAt: DateTime
  }

  "A bulk redelivery: how many deliveries were queued, whether more are left, and the new deliveries."
  type BulkRedelivery { queued: Int! hasMore: Boolean! deliveries: [Redelivery!]! }
  type Redelivery { id: ID! redeliveryOf: ID! eventId: ID! }

  type AgentPage { items: [Agent!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean! }
  type PromptVersionPage {
    items: [PromptVersion!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean!
  }
  type CallPage { items: [Call!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean! }
  type CampaignPage { items: [Campaign!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean! }
  type ContactPage { items: [Contact!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean! }
  type WebhookDeliveryPage {
    items: [WebhookDelivery!]! page: Int! pageSize: Int! total: Int! totalPages: Int! hasMore: Boolean!
  }

  input WebhookConfigInput {
    url: String!
    events: [WebhookEvent!]
    "Signs each delivery: any non-empty string of up to 256 characters (use 32+ random ones). Omitted on update: keep the current secret; null: remove it."
    secret: String
  }
  input CreateAgentInput {
    name: String! agentType: String language: String voice: String aiModel: String
    startFlow: String! endFlow: String! description: String prompt: String webhookConfig: WebhookConfigInput
  }
  "Partial: omitted fields keep their value; prompt: null returns to the generated prompt; webhookConfig: null removes it."
  input UpdateAgentInput {
    name: String agentType: String language: String voice: String aiModel: String startFlow: String
    endFlow: String description: String prompt: String webhookConfig: WebhookConfigInput
  }
  "Failed deliveries created from \`from\` (inclusive) to \`to\` (exclusive, at most 30 days later)."
  input RedeliverFailedInput { from: DateTime! to: DateTime! limit: Int }
  input MakeCallInput { agentId: ID! sourceNumber: String! phoneNumber: String! metadata: JSON }
  input RetryConfigInput { onStatuses: [RetryableStatus!] maxRetries: Int intervalSeconds: Int }
  input CreateCampaignInput {
    name: String! agentId: ID! phoneNumber: String! phoneColumn: String
    "Flat objects; the phoneColumn key holds the number, the other keys reach the call as metadata.contact."
    contacts: [JSON!]!
    maxConcurrentCalls: Int retryConfig: RetryConfigInput startAt: DateTime
  }

  """
  Reads. Each root field an operation runs counts as one request against the key's rate limit (an
  alias is one more); an operation that counts as more than is left is refused whole (RATE_LIMITED).
  A document holds at most 50 aliases, nests at most 10 levels (introspection aside) and asks for
  at most about 20,000 values (a paged field times its pageSize; introspection what it returns).
  """
  type Query {
    industries: [Industry!]!
    agentTypes(industry: String!): [AgentType!]!
    voices: [Voice!]!
    languages: [Language!]!
    "Models an agent can run on; the default one is used when aiModel is omitted (beyond the spec)."
    aiModels: [AiModel!]!
    "The account and scopes of the calling API key (beyond the spec)."
    me: Me!
    agents(page: Int = 1, pageSize: Int = 20): AgentPage!
    agent(id: ID!): Agent
    agentPrompt(id: ID!): AgentPrompt
    calls(
      page: Int = 1, pageSize: Int = 20, status: CallStatus, agentId: ID, campaignId: ID, from: DateTime, to: DateTime
    ): CallPage!
    call(id: ID!): Call
    campaigns(page: Int = 1, pageSize: Int = 20, status: CampaignStatus): CampaignPage!
    campaign(id: ID!): Campaign
  }

  """
  Changes: at most 10 root fields a request (GRAPHQL_VALIDATION_FAILED beyond), each one counting
  as one request against the rate limit.
  """
  type Mutation {
    createAgent(input: CreateAgentInput!): Agent!
    updateAgent(id: ID!, input: UpdateAgentInput!): Agent!
    deleteAgent(id: ID!): Boolean!
    saveAgentInstructions(id: ID!, instructions: String!): AgentPrompt!
    savePromptVersion(agentId: ID!, label: String): PromptVersion!
    restorePromptVersion(agentId: ID!, versionId: ID!): Agent!
    deletePromptVersion(agentId: ID!, versionId: ID!): Boolean!
    makeCall(input: MakeCallInput!, idempotencyKey: String): Call!
    createCampaign(input: CreateCampaignInput!, idempotencyKey: String): Campaign!
    pauseCampaign(id: ID!): Campaign!
    resumeCampaign(id: ID!): Campaign!
    cancelCampaign(id: ID!): Campaign!
    "A new delivery of the same event to the agent's current webhook (CONFLICT without one)."
    redeliverWebhook(agentId: ID!, deliveryId: ID!): WebhookDelivery!
    "Every event of the agent whose delivery failed in the range, delivered again once."
    redeliverFailedWebhooks(agentId: ID!, input: RedeliverFailedInput!): BulkRedelivery!
    "A sample CALL_ENDED for this agent, sent to its webhook with test: true in data.metadata."
    sendWebhookTest(agentId: ID!): WebhookDelivery!
  }

  type Subscription {
    "The call after each of its transitions, in order: one call, one agent's, one campaign's, or the account's."
    callStatusChanged(callId: ID, agentId: ID, campaignId: ID): Call!
    "The campaign on every change of its status or counts."
    campaignProgress(campaignId: ID!): Campaign!
  }
`;
