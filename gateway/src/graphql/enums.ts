import {
  CALL_END_REASONS,
  CALL_LENGTH_SOURCES,
  CALL_STATUSES,
  CAMPAIGN_STATUSES,
  CARRIERS,
  CONTACT_STATES,
  DELIVERY_STATUSES,
  DETAILS_STATUSES,
  DetailFieldType,
  DO_NOT_CALL_ADD_SOURCES,
  DO_NOT_CALL_SOURCES,
  ENDED_BY,
  ENDPOINT_DELIVERY_STATUSES,
  ENDPOINT_EVENT_KINDS,
  PLANS,
  RETRYABLE_STATUSES,
  SCOPES,
  SIP_CODECS,
  SipTrunkHealth,
  SKIP_REASONS,
  WEBHOOK_EVENT_KINDS,
  WEEKDAYS,
} from '@voice/shared';

/** Each GraphQL enum (declared, with its values' descriptions, in type-defs.ts) over the values records carry. */
export const ENUM_VALUES: Record<string, readonly string[]> = {
  CallStatus: CALL_STATUSES,
  CampaignStatus: CAMPAIGN_STATUSES,
  ContactState: CONTACT_STATES,
  RetryableStatus: RETRYABLE_STATUSES,
  Weekday: WEEKDAYS,
  Sentiment: ['positive', 'neutral', 'negative'],
  Carrier: CARRIERS,
  PromptSource: ['generated', 'custom'],
  DeliveryStatus: DELIVERY_STATUSES,
  EndpointDeliveryStatus: ENDPOINT_DELIVERY_STATUSES,
  WebhookEvent: WEBHOOK_EVENT_KINDS,
  EndpointEvent: ENDPOINT_EVENT_KINDS,
  AgentTypeCategory: ['general', 'industry'],
  DetailFieldType: DetailFieldType.options,
  VoiceGender: ['female', 'male', 'neutral'],
  CallEndReason: CALL_END_REASONS,
  EndedBy: ENDED_BY,
  TranscriptRole: ['agent', 'user'],
  DetailsCollectionStatus: DETAILS_STATUSES,
  SkipReason: SKIP_REASONS,
  CallLengthSource: CALL_LENGTH_SOURCES,
  DoNotCallSource: DO_NOT_CALL_SOURCES,
  DoNotCallAddSource: DO_NOT_CALL_ADD_SOURCES,
  Plan: PLANS,
  Scope: SCOPES,
  SipCodec: SIP_CODECS,
  SipTrunkHealthStatus: SipTrunkHealth.shape.status.options,
};

/** A value's GraphQL name: UPPER_CASE (`agents:read` is AGENTS_READ). */
export const enumValueName = (value: string) => value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');

/** The GraphQL enum with exactly these values; an input with another set has no GraphQL type. */
export function enumNamed(values: readonly string[]): string {
  const key = [...values].sort().join(',');
  const found = Object.entries(ENUM_VALUES).filter(([, v]) => [...v].sort().join(',') === key);
  if (found.length !== 1) throw new Error(`no single GraphQL enum has the values ${key}`);
  return found[0]![0];
}
