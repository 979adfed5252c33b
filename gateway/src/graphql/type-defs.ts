/**
 * The GraphQL schema's types: the REST resources with camelCase fields and UPPER_CASE enums. Every
 * field is resolved from the same records REST returns (snake_case keys mapped by the default
 * resolver). The operations' fields (the roots, Agent.promptVersions, ...) are made from the
 * catalogue (operation-fields.ts); graphql-contracts.test.ts holds these types to the contracts.
 */
/**
 * A page of a list: REST's page wrapper (shared/src/contracts/common.ts) in camelCase, declared once
 * so every list pages alike; its fields are described from that contract (descriptions.ts).
 */
function page(type: string, item: string, what: string): string {
  return /* GraphQL */ `
  "One page of ${what}."
  type ${type} {
    items: [${item}!]! page: Int! pageSize: Int! total: Int! totalExact: Boolean! totalPages: Int! hasMore: Boolean!
    nextCursor: String
  }`;
}

export const typeDefs = /* GraphQL */ `
  # Described in scalars.ts, with their parsing.
  scalar DateTime
  scalar JSON

  "Where a call is: initializing, ringing, in progress, then one final outcome."
  enum CallStatus {
    "Accepted, not dialed yet." INITIALIZING
    "Dialed, not answered yet." RINGING
    "Answered: the conversation is on." IN_PROGRESS
    "Final: the conversation took place and ended." COMPLETED
    "Final: nobody answered." NO_ANSWER
    "Final: the call could not be carried." FAILED
    "Final: a voicemail machine answered." VOICEMAIL
    "Final: the line was busy." BUSY
  }
  "Where a campaign is."
  enum CampaignStatus {
    "Created; a large list is still being checked for duplicates (then scheduled or running on its own)." PREPARING
    "Waiting for its startAt." SCHEDULED
    "Calling its contacts." RUNNING
    "Paused: no new calls until resumed." PAUSED
    "Final: every contact reached a final state." COMPLETED
    "Final: cancelled; contacts not yet called are cancelled." CANCELLED
  }
  "Where a campaign contact is: waiting, on a call, or its final outcome."
  enum ContactState {
    "Waiting for a call or a retry." PENDING
    "On a call now." IN_PROGRESS
    "Final: its last call completed." COMPLETED
    "Final: its last call was not answered." NO_ANSWER
    "Final: its last call failed, or it failed without a call." FAILED
    "Final: its last call reached voicemail." VOICEMAIL
    "Final: its last call was busy." BUSY
    "Final: never dialed (see skipReason)." SKIPPED
    "Final: not dialed because the campaign was cancelled." CANCELLED
  }
  "A call outcome after which a campaign may dial the contact again."
  enum RetryableStatus {
    "Nobody answered." NO_ANSWER
    "The line was busy." BUSY
    "A voicemail machine answered." VOICEMAIL
    "The call could not be carried." FAILED
  }
  "A day of the week, in the zone a calling window is judged in."
  enum Weekday {
    "Monday." MON
    "Tuesday." TUE
    "Wednesday." WED
    "Thursday." THU
    "Friday." FRI
    "Saturday." SAT
    "Sunday." SUN
  }
  "The tone of the person called over the conversation."
  enum Sentiment {
    "Positive." POSITIVE
    "Neutral, or no conversation took place." NEUTRAL
    "Negative." NEGATIVE
  }
  "What carried a call."
  enum Carrier {
    "The built-in simulated carrier: no real telephone network was dialed." SIMULATED
    "A SIP trunk." SIP
  }
  "Where an agent's prompt came from."
  enum PromptSource {
    "Built from the agent's type, flows and settings." GENERATED
    "Written by you." CUSTOM
  }
  "Where a webhook delivery is."
  enum DeliveryStatus {
    "Waiting for its next attempt." PENDING
    "An attempt is under way." DELIVERING
    "Final: your server answered 2xx." SUCCEEDED
    "Final: every attempt failed." FAILED
  }
  "Where a webhook endpoint's delivery is."
  enum EndpointDeliveryStatus {
    "Waiting for its next attempt." PENDING
    "An attempt is under way." DELIVERING
    "Final: your server answered 2xx." SUCCEEDED
    "Final: every attempt failed." FAILED
    "Final: the endpoint was disabled before it was sent; never sent later (redeliver to send it)." CANCELLED
  }
  "An event a webhook can receive."
  enum WebhookEvent {
    "A call reached its final status." CALL_ENDED
  }
  "An event an account webhook endpoint can receive."
  enum EndpointEvent {
    "A call started ringing at the callee." CALL_RINGING
    "A call was answered." CALL_ANSWERED
    "A call reached its final status." CALL_ENDED
    "A campaign started running." CAMPAIGN_STARTED
    "A campaign was paused." CAMPAIGN_PAUSED
    "A paused campaign was resumed." CAMPAIGN_RESUMED
    "A campaign finished its contacts." CAMPAIGN_COMPLETED
    "A campaign was cancelled." CAMPAIGN_CANCELLED
    "A campaign contact's retries are spent." CONTACT_EXHAUSTED
  }
  "Whether an agent type is for any industry or for one."
  enum AgentTypeCategory {
    "For any industry." GENERAL
    "Specialised for one industry." INDUSTRY
  }
  "The kind of value a collected detail holds."
  enum DetailFieldType {
    "Text." STRING
    "A number." NUMBER
    "Yes or no." BOOLEAN
    "A calendar date." DATE
    "A date and time." DATETIME
    "A phone number." PHONE
    "An email address." EMAIL
    "One of the detail's options." ENUM
  }
  "How a voice sounds."
  enum VoiceGender {
    "Female." FEMALE
    "Male." MALE
    "Neither." NEUTRAL
  }
  "Why a call ended."
  enum CallEndReason {
    "The conversation reached its end." CONVERSATION_COMPLETED
    "The person called hung up." CUSTOMER_HUNG_UP
    "The agent hung up." AGENT_HUNG_UP
    "Nobody answered." NO_ANSWER
    "The line was busy." BUSY
    "A voicemail machine answered." VOICEMAIL_DETECTED
    "The carrier failed to carry the call." CARRIER_ERROR
    "The number cannot be called." INVALID_NUMBER
    "The person called, or their network, refused the call (SIP 603 Decline)." DECLINED
    "The call ran out of time." TIMEOUT
    "The system cancelled the call." CANCELLED
  }
  "Who ended a call."
  enum EndedBy {
    "The agent." AGENT
    "The person called." USER
    "The platform (a timeout or a cancel)." SYSTEM
    "The telephone network." CARRIER
  }
  "Who spoke a transcript line."
  enum TranscriptRole {
    "The agent." AGENT
    "The person called." USER
  }
  "How much of the requested details a call collected."
  enum DetailsCollectionStatus {
    "Every required detail." COMPLETE
    "Some details." PARTIAL
    "None." NONE
  }
  "Why a campaign contact was never dialed."
  enum SkipReason {
    "It has no number under phoneColumn." MISSING_PHONE
    "Its number is not a valid E.164 number." INVALID_PHONE
    "An earlier contact has the same number." DUPLICATE
    "Its number was on the account's do-not-call list when its turn to be dialed came." DO_NOT_CALL
  }
  "Where a dry run's average call length came from."
  enum CallLengthSource {
    "The mean of the agent's latest ended calls." AGENT_HISTORY
    "The documented default: the agent has no ended calls." DEFAULT
  }
  "Where a do-not-call entry came from."
  enum DoNotCallSource {
    "Added through the API." API
    "Added from an import (a client's own label)." IMPORT
    "The callee asked not to be called again during a call." OPT_OUT
  }
  "Where numbers being added to the do-not-call list came from."
  enum DoNotCallAddSource {
    "Added through the API (the default)." API
    "Added from an import." IMPORT
  }
  "An account's plan, which sets its rate limit."
  enum Plan {
    "60 requests a minute." FREE
    "300 requests a minute." PRO
    "The account's own limit." ENTERPRISE
  }
  "An API key's permission: AGENTS_READ is agents:read."
  enum Scope {
    "Read agents, their prompts and webhook deliveries." AGENTS_READ
    "Create, change and delete agents; redeliver and test webhooks." AGENTS_WRITE
    "Read calls." CALLS_READ
    "Place calls." CALLS_WRITE
    "Read campaigns and their contacts." CAMPAIGNS_READ
    "Create campaigns, pause, resume and cancel them." CAMPAIGNS_WRITE
    "Read the account's SIP trunks (never their passwords)." TRUNKS_READ
    "Add, change and remove SIP trunks." TRUNKS_WRITE
  }
  "An audio codec a SIP trunk is offered."
  enum SipCodec {
    "G.711 mu-law (North America, Japan)." PCMU
    "G.711 A-law (most other countries)." PCMA
  }
  "Whether a SIP trunk answered its last keep-alive."
  enum SipTrunkHealthStatus {
    "It answered (any final response but 408 and 5xx)." REACHABLE
    "It did not, or answered 408 or 5xx." UNREACHABLE
    "Not checked yet." UNKNOWN
  }

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
  type AiModel { id: ID! name: String! provider: String! description: String! default: Boolean! }
  type Me { account: MeAccount! key: MeKey! calls: MeCalls! }
  type MeAccount { id: ID! name: String! plan: Plan! rateLimitPerMinute: Int! }
  type MeKey { id: ID! scopes: [Scope!]! }
  "The account's calls now: its limit of calls dialed at once, those dialed and not ended, those waiting for a slot."
  type MeCalls { maxConcurrentCalls: Int! activeCalls: Int! waitingCalls: Int! }

  type WebhookConfig { url: String! events: [WebhookEvent!]! hasSecret: Boolean! }
  type Agent {
    id: ID! name: String! agentType: String! industry: String language: String! voice: String! aiModel: String!
    startFlow: String! endFlow: String! description: String prompt: String! promptSource: PromptSource!
    activePromptVersionId: ID webhookConfig: WebhookConfig createdAt: DateTime! updatedAt: DateTime!
  }
  type PromptVersionStatus { agentId: ID! activeVersionId: ID currentDiffersFromActive: Boolean! count: Int! }
  type PromptVersion {
    id: ID! agentId: ID! version: Int! label: String prompt: String! promptSource: PromptSource!
    isActive: Boolean! createdAt: DateTime!
  }
  type AgentPrompt { agentId: ID! prompt: String! promptSource: PromptSource! activePromptVersionId: ID }

  type TranscriptEntry { role: TranscriptRole! content: String! timestamp: String! confidence: Float }
  type DetailsCollection { status: DetailsCollectionStatus! score: Float! collectedDetails: [String!]! collectedValues: JSON! }
  type TelephonyInfo { carrier: Carrier! trunkId: ID sipCode: Int sipReason: String }
  type Call {
    id: ID! sessionId: ID! status: CallStatus! phoneNumber: String! sourceNumber: String! direction: String!
    agentId: ID! agentType: String! userId: String! campaignId: ID metadata: JSON
    "The agent as it is now; null once it was deleted. agentName keeps the name it called with."
    agent: Agent
    "The agent's name when the call was placed."
    agentName: String!
    createdAt: DateTime! startedAt: DateTime answeredAt: DateTime endedAt: DateTime
    duration: Int! durationSeconds: Int! durationMinutes: Float!
    transcript: [TranscriptEntry!]! recordingUrl: String! sentiment: Sentiment!
    callSummary: String callEndReason: CallEndReason endedBy: EndedBy detailsCollection: DetailsCollection
    optedOut: Boolean!
    aiCost: Float! telephonyCost: Float! totalCost: Float! costCurrency: String!
    promptVersionId: ID promptHash: String!
    telephony: TelephonyInfo!
  }

  type RetryConfig { onStatuses: [RetryableStatus!]! maxRetries: Int! intervalSeconds: Int! }
  type CallingWindow {
    days: [Weekday!]! start: String! end: String!
    "\`recipient\` (each contact's own zone) or one IANA zone."
    timezone: String!
    fallbackTimezone: String!
  }
  type CampaignCounts {
    total: Int! pending: Int! inProgress: Int! completed: Int! noAnswer: Int! failed: Int! voicemail: Int!
    busy: Int! skipped: Int! cancelled: Int!
  }
  type Campaign {
    id: ID! name: String! agentId: ID!
    "The agent that makes its calls, as it is now; null once it was deleted."
    agent: Agent
    phoneNumber: String! phoneColumn: String!
    maxConcurrentCalls: Int! retryConfig: RetryConfig
    "When its contacts may be called, in local time; null when at any time."
    callingWindow: CallingWindow
    status: CampaignStatus! counts: CampaignCounts!
    startAt: DateTime createdAt: DateTime! startedAt: DateTime finishedAt: DateTime
    "Why preparing the contact list failed (the campaign was cancelled); null otherwise."
    failureReason: String
  }
  type SkippedContacts { missingPhone: Int! invalidPhone: Int! duplicate: Int! }
  "What an addition of contacts stored, and the campaign after it."
  type ContactsAdded { received: Int! added: Int! skipped: SkippedContacts! campaign: Campaign! }
  type Contact {
    id: ID! campaignId: ID! position: Int! phoneNumber: String data: JSON! state: ContactState! attempts: Int!
    callIds: [ID!]! skipReason: SkipReason failureReason: String
    nextAttemptAt: DateTime updatedAt: DateTime!
  }

  "What a create would make of each contact."
  type ValidationCounts {
    total: Int! valid: Int! invalid: Int! missingPhone: Int! invalidPhone: Int! duplicate: Int! doNotCall: Int!
  }
  "One contact a create would skip: its position and phone value (null when missing)."
  type ValidationRow { position: Int! value: String }
  type ValidationProblemRows {
    missingPhone: [ValidationRow!]! invalidPhone: [ValidationRow!]! duplicate: [ValidationRow!]! doNotCall: [ValidationRow!]!
  }
  type ValidationZoneSources { contact: Int! number: Int! campaign: Int! fallback: Int! }
  "The valid contacts of one time zone, or of a zone set joined by ','."
  type ValidationZone { zone: String! zones: [String!]! contacts: Int! sources: ValidationZoneSources! }
  type ValidationEta {
    etaSeconds: Int estimatedCompletionAt: DateTime startsAt: DateTime! maxConcurrentCalls: Int! accountMaxConcurrentCalls: Int!
    avgCallSeconds: Float! avgCallSource: CallLengthSource! agentCallsSampled: Int! retriesCounted: Boolean! callingWindow: Boolean!
  }
  "A dry run of a create: nothing was created."
  type CampaignValidation {
    counts: ValidationCounts! problems: ValidationProblemRows! timeZones: [ValidationZone!]! eta: ValidationEta!
  }

  type DeliveryAttempt {
    attempt: Int! startedAt: DateTime! durationMs: Int! statusCode: Int error: String succeeded: Boolean!
  }
  type WebhookDelivery {
    id: ID! agentId: ID! eventId: ID! event: WebhookEvent! sessionId: String! url: String!
    status: DeliveryStatus! attempts: [DeliveryAttempt!]! nextAttemptAt: DateTime redeliveryOf: ID
    test: Boolean! createdAt: DateTime! completedAt: DateTime
  }

  "A SIP trunk the account's calls go out through. The password is write-only: hasPassword says whether one is set."
  type SipTrunk {
    id: ID! name: String! uri: String! username: String hasPassword: Boolean! numbers: [String!]! isDefault: Boolean!
    maxConcurrentCalls: Int callsPerSecond: Float ringTimeoutSeconds: Int! codecs: [SipCodec!]!
    health: SipTrunkHealth! createdAt: DateTime! updatedAt: DateTime!
  }
  type SipTrunkHealth {
    status: SipTrunkHealthStatus! checkedAt: DateTime latencyMs: Int sipCode: Int detail: String
  }

  "An account webhook endpoint: where the account's events go (the secret is never returned)."
  type WebhookEndpoint {
    id: ID! url: String! events: [EndpointEvent!]! description: String enabled: Boolean!
    secretRotatedAt: DateTime previousSecretExpiresAt: DateTime createdAt: DateTime! updatedAt: DateTime!
  }
  "A webhook endpoint with its new signing secret, shown only on create and on rotation."
  type WebhookEndpointWithSecret {
    id: ID! url: String! events: [EndpointEvent!]! description: String enabled: Boolean!
    secretRotatedAt: DateTime previousSecretExpiresAt: DateTime createdAt: DateTime! updatedAt: DateTime!
    secret: String!
  }
  "One delivery of an event to an account webhook endpoint."
  type EndpointDelivery {
    id: ID! endpointId: ID! eventId: ID! event: EndpointEvent! url: String!
    status: EndpointDeliveryStatus! attempts: [DeliveryAttempt!]! nextAttemptAt: DateTime redeliveryOf: ID
    test: Boolean! createdAt: DateTime! completedAt: DateTime
  }

  "A number the account never calls: a call to it is refused, a campaign contact on it skipped."
  type DoNotCallEntry {
    number: String! reason: String source: DoNotCallSource! callId: ID createdAt: DateTime!
  }
  "What an add to the do-not-call list listed."
  type DoNotCallAdded { added: Int! alreadyListed: Int! }

  type BulkRedelivery { queued: Int! hasMore: Boolean! deliveries: [Redelivery!]! }
  type Redelivery { id: ID! redeliveryOf: ID! eventId: ID! }

${page('AgentPage', 'Agent', 'agents')}
${page('PromptVersionPage', 'PromptVersion', 'prompt versions')}
${page('CallPage', 'Call', 'calls')}
${page('CampaignPage', 'Campaign', 'campaigns')}
${page('ContactPage', 'Contact', 'campaign contacts')}
${page('SipTrunkPage', 'SipTrunk', 'SIP trunks')}
${page('DoNotCallPage', 'DoNotCallEntry', 'do-not-call numbers')}
${page('WebhookDeliveryPage', 'WebhookDelivery', 'webhook deliveries')}
${page('WebhookEndpointPage', 'WebhookEndpoint', 'webhook endpoints')}
${page('EndpointDeliveryPage', 'EndpointDelivery', 'webhook endpoint deliveries')}

  input WebhookConfigInput {
    url: String!
    events: [WebhookEvent!]
    secret: String
  }
  input CreateAgentInput {
    name: String! agentType: String language: String voice: String aiModel: String
    startFlow: String! endFlow: String! description: String prompt: String webhookConfig: WebhookConfigInput
  }
  input UpdateAgentInput {
    name: String agentType: String language: String voice: String aiModel: String startFlow: String
    endFlow: String description: String prompt: String webhookConfig: WebhookConfigInput
  }
  "Failed deliveries created from \`from\` (inclusive) to \`to\` (exclusive, at most 30 days later)."
  input RedeliverFailedInput { from: DateTime! to: DateTime! limit: Int }
  "A SIP trunk to add."
  input CreateSipTrunkInput {
    name: String! uri: String! username: String password: String numbers: [String!] isDefault: Boolean
    maxConcurrentCalls: Int callsPerSecond: Float ringTimeoutSeconds: Int codecs: [SipCodec!]
  }
  "Changes to a SIP trunk: omitted fields keep their value; null removes username, password or a limit."
  input UpdateSipTrunkInput {
    name: String uri: String username: String password: String numbers: [String!] isDefault: Boolean
    maxConcurrentCalls: Int callsPerSecond: Float ringTimeoutSeconds: Int codecs: [SipCodec!]
  }
  "An account webhook endpoint to add."
  input CreateWebhookEndpointInput { url: String! events: [EndpointEvent!]! description: String }
  "Changes to a webhook endpoint: omitted fields keep their value."
  input UpdateWebhookEndpointInput { url: String events: [EndpointEvent!] enabled: Boolean description: String }
  "Numbers to add to the do-not-call list, with one reason and source for all."
  input AddDoNotCallInput { numbers: [String!]! reason: String source: DoNotCallAddSource }
  input MakeCallInput { agentId: ID! sourceNumber: String! phoneNumber: String! metadata: JSON }
  input RetryConfigInput { onStatuses: [RetryableStatus!] maxRetries: Int intervalSeconds: Int }
  "When contacts may be called: HH:MM start and end (24:00 allowed) on the days given, in each recipient's zone or one."
  input CallingWindowInput {
    days: [Weekday!] start: String! end: String! timezone: String fallbackTimezone: String
  }
  input CreateCampaignInput {
    name: String! agentId: ID! phoneNumber: String! phoneColumn: String
    contacts: [JSON!]!
    maxConcurrentCalls: Int retryConfig: RetryConfigInput callingWindow: CallingWindowInput startAt: DateTime
  }
  "Changes to a campaign: omitted fields keep their value; retryConfig null stops retrying."
  input UpdateCampaignInput {
    name: String maxConcurrentCalls: Int retryConfig: RetryConfigInput callingWindow: CallingWindowInput
  }
  "Contacts to add to a campaign, each a flat object with the number under its phoneColumn."
  input AddCampaignContactsInput { contacts: [JSON!]! }
`;
