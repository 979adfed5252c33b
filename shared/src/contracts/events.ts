import { z } from 'zod';
import { Call, CallStatus } from './call';
import { Campaign, CampaignContact } from './campaign';
import { DateTime, Uuid } from './common';
import { SipCallProgress } from './telephony-calls';

/** A durable stream: what it stores and for how long. */
export interface StreamDefinition {
  /** Stream name, e.g. CALL_EVENTS. */
  name: string;
  /** Subjects stored in the stream, e.g. ['events.call.>']. */
  subjects: string[];
  /** How long the server keeps messages, in milliseconds. */
  maxAgeMs: number;
}

const DAY_MS = 86_400_000;

/**
 * Durable streams: where events that must survive a restart are stored, for the durable consumers
 * that act on them (webhooks and campaigns act on CALL_ENDED).
 */
export const STREAMS = {
  callEvents: { name: 'CALL_EVENTS', subjects: ['events.call.ended.>'], maxAgeMs: 7 * DAY_MS },
  sipCallEvents: { name: 'SIP_CALL_EVENTS', subjects: ['events.sip.progress.>'], maxAgeMs: DAY_MS },
  /** A call's ringing and answer, for account webhook endpoints (its end is CALL_EVENTS). */
  callProgressEvents: {
    name: 'CALL_PROGRESS_EVENTS',
    subjects: ['events.call.progress.>'],
    maxAgeMs: DAY_MS,
  },
  /** A campaign's lifecycle and its exhausted contacts, for account webhook endpoints. */
  campaignEvents: {
    name: 'CAMPAIGN_EVENTS',
    subjects: ['events.campaign.lifecycle.>', 'events.campaign.exhausted.>'],
    maxAgeMs: 7 * DAY_MS,
  },
} as const satisfies Record<string, StreamDefinition>;

/**
 * An event: its subject prefix, the stream that stores it (none for a live event), and its payload
 * schema. Concrete subjects append the account and the entity (`events.call.status.<account>.<call>`),
 * so a live subscription can listen to one account, or one call, with a wildcard.
 *
 * Live events (a call's status changes, a campaign's progress) are plain publishes stored in no
 * stream: their only readers are live subscriptions, which see what is published while they listen
 * and cannot replay. A campaign's progress is relayed from the campaign outbox; a call's status
 * changes are published by the call service once each transition committed, except its end, which
 * live subscribers read from CALL_ENDED (see services/call/src/app/call-events.ts).
 */
export interface EventContract<D extends z.ZodType = z.ZodType> {
  prefix: string;
  stream: StreamDefinition | undefined;
  data: D;
}

function eventContract<D extends z.ZodType>(
  prefix: string,
  stream: StreamDefinition | undefined,
  data: D,
): EventContract<D> {
  return { prefix, stream, data };
}

/** The subject of one event about `entityId` in `accountId`. */
export function eventSubject(contract: EventContract, accountId: string, entityId: string): string {
  return `${contract.prefix}.${accountId}.${entityId}`;
}

/** Every event of this kind (optionally one account's, optionally one entity's): for subscribers. */
export function eventFilter(contract: EventContract, accountId?: string, entityId?: string): string {
  if (!accountId) return `${contract.prefix}.>`;
  return `${contract.prefix}.${accountId}.${entityId ?? '*'}`;
}

/** The account an event's subject names (`<prefix>.<account>.<entity>`); undefined for another subject. */
export function eventAccount(contract: EventContract, subject: string): string | undefined {
  if (!subject.startsWith(`${contract.prefix}.`)) return undefined;
  const start = contract.prefix.length + 1;
  const dot = subject.indexOf('.', start);
  return dot > start ? subject.slice(start, dot) : undefined;
}

/** Every event on the bus has this envelope; `id` is unique and used for deduplication. */
export function EventEnvelope<D extends z.ZodType>(data: D) {
  return z.object({
    id: Uuid,
    type: z.string(),
    account_id: z.string(),
    occurred_at: DateTime,
    data,
  });
}
export interface EventOf<T> {
  id: string;
  type: string;
  account_id: string;
  occurred_at: string;
  data: T;
}

/**
 * A call record as an event carries it. Events written before sentiment and recording_url became
 * non-null (they were null for calls without a conversation or a recording) and before telephony
 * was added may still wait in an outbox or a stream after an upgrade: they read as the current
 * record says such a call is, instead of being dropped as outside the contract.
 */
const EventCall = z.preprocess((value) => {
  if (typeof value !== 'object' || value === null) return value;
  const call = value as Record<string, unknown>;
  return {
    ...call,
    sentiment: call.sentiment ?? 'neutral',
    recording_url: call.recording_url ?? '',
    telephony: call.telephony ?? { carrier: 'simulated', trunk_id: null, sip_code: null, sip_reason: null },
  };
}, Call);

export const CallStatusChanged = z.object({
  call_id: Uuid,
  status: CallStatus,
  previous_status: CallStatus.nullable(),
  campaign_id: Uuid.nullable(),
  agent_id: Uuid,
  /** Monotonic per call: consumers ignore anything older than what they have seen. */
  sequence: z.number().int(),
  /** The record after this transition (recording_url empty: the gateway signs links). */
  call: EventCall,
});

export const CallEnded = z.object({
  call: EventCall,
  /**
   * The final transition's sequence, for live subscribers (for whom CALL_ENDED is the call's last
   * status change). Absent from events written before it was added: those are final all the same.
   */
  sequence: z.number().int().optional(),
});

/** A campaign's status or counts changed: the whole record, for live subscriptions. */
export const CampaignProgress = z.object({
  campaign: Campaign,
  /** Monotonic per campaign: consumers ignore anything older than what they have seen. */
  sequence: z.number().int(),
});

/** A call rang or was answered: durable, from the call service's outbox, for webhook endpoints. */
export const CallProgressed = z.object({
  status: z.enum(['ringing', 'in_progress']),
  sequence: z.number().int(),
  call: EventCall,
});

/** The campaign lifecycle moves an account webhook endpoint can hear of. */
export const CAMPAIGN_LIFECYCLE_EVENTS = [
  'CAMPAIGN_STARTED',
  'CAMPAIGN_PAUSED',
  'CAMPAIGN_RESUMED',
  'CAMPAIGN_COMPLETED',
  'CAMPAIGN_CANCELLED',
] as const;

/** A campaign's status moved (started, paused, resumed, completed, cancelled): durable, from its outbox. */
export const CampaignLifecycle = z.object({
  event: z.enum(CAMPAIGN_LIFECYCLE_EVENTS),
  campaign: Campaign,
});

/** A contact's last allowed attempt ended with an outcome its campaign retries: durable, from the outbox. */
export const ContactExhausted = z.object({
  campaign_id: Uuid,
  contact: CampaignContact,
});

export const EVENTS = {
  callStatusChanged: eventContract('events.call.status', undefined, CallStatusChanged),
  callEnded: eventContract('events.call.ended', STREAMS.callEvents, CallEnded),
  campaignProgress: eventContract('events.campaign.progress', undefined, CampaignProgress),
  /** A SIP call's progress, telephony service -> call service (subject names account and call). */
  sipCallProgress: eventContract('events.sip.progress', STREAMS.sipCallEvents, SipCallProgress),
  callProgressed: eventContract('events.call.progress', STREAMS.callProgressEvents, CallProgressed),
  campaignLifecycle: eventContract('events.campaign.lifecycle', STREAMS.campaignEvents, CampaignLifecycle),
  contactExhausted: eventContract('events.campaign.exhausted', STREAMS.campaignEvents, ContactExhausted),
} as const;
