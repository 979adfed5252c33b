import { z } from 'zod';
import { CallEndReason, CallOutcome, EndedBy, Sentiment } from './call';
import { DateTime, E164, JsonObject, Uuid } from './common';
import { CollectedDetail } from './discovery';

/**
 * The call service and the telephony service about one real (SIP) call. The call service decides
 * that a call goes out over SIP (TELEPHONY.route), asks the telephony service to dial it, and hears
 * its progress as durable events (EVENTS.sipCallProgress). Audio never travels on the bus: the
 * telephony instance that dialed a call carries its media and writes its recording to the store.
 */

/** What the agent says into the call, spoken with local speech synthesis. */
export const SipCallSpeech = z.object({
  language: z.string().min(2).max(35),
  voice: z.string().max(100).nullable(),
  start_flow: z.string().max(10_000),
  end_flow: z.string().max(10_000),
});

/**
 * What the conversation engine needs to hold the agent's conversation: who the agent is, what it
 * tries to collect, its prompt and model, and what the call was placed with. Absent from requests
 * of call-service instances older than the conversation engine: those calls speak their flows only.
 */
export const SipConversation = z.object({
  agent_name: z.string().max(200),
  agent_type: z.string().max(64),
  goal: z.string().max(2000),
  prompt: z.string().max(32_000),
  ai_model: z.string().max(100),
  collects: z.array(CollectedDetail).max(50),
  /** The call's metadata (name and contact fields the agent may use); null without any. */
  metadata: JsonObject.nullable(),
  /** Longest the conversation may last after the answer, in seconds. */
  max_duration_seconds: z.number().int().min(10).max(14_400),
});
export type SipConversation = z.infer<typeof SipConversation>;

export const SipDialRequest = z.object({
  call_id: Uuid,
  trunk_id: Uuid,
  source_number: E164,
  destination_number: E164,
  speech: SipCallSpeech,
  conversation: SipConversation.optional(),
});
export type SipDialRequest = z.infer<typeof SipDialRequest>;

/**
 * Accepted: the call is dialed (or was already, for a re-sent request: a call id is dialed at most
 * once). `instance` names the telephony instance that carries it.
 */
export const SipDialReply = z.object({ call_id: Uuid, instance: z.string().max(200), already: z.boolean() });

export const SipHangupRequest = z.object({ call_id: Uuid });
/** `ended`: false when the call had already ended (its ended event is, or will be, published). */
export const SipHangupReply = z.object({ call_id: Uuid, ended: z.boolean() });

export const SipProgressType = z.enum(['ringing', 'answered', 'ended']);

/** At most this many pressed keys are kept per call; later ones are dropped. */
export const MAX_DTMF_DIGITS = 200;

/** Answering-machine detection's verdict on who picked up; `not_run` when the call was never answered. */
export const AmdVerdict = z.enum(['human', 'machine', 'uncertain', 'not_run']);
export type AmdVerdict = z.infer<typeof AmdVerdict>;

/** At most this many lines of either side are kept per call. */
export const MAX_CONVERSATION_LINES = 1000;

/** What the conversation engine made of the call (absent from events of older instances: none). */
export const SipConversationResult = z.object({
  amd: AmdVerdict,
  /** Details the brain collected, by detail name. */
  collected: JsonObject,
  /** The callee asked not to be called again. */
  opted_out: z.boolean(),
  sentiment: Sentiment,
  summary: z.string().max(2000),
  /** Set when the callee's language has no speech recogniser here: nothing they said is text. */
  recognition_unavailable: z.string().max(300).nullable(),
});
export type SipConversationResult = z.infer<typeof SipConversationResult>;

/** How a SIP call ended, as the call record states it. */
export const SipCallEnd = z.object({
  status: CallOutcome,
  call_end_reason: CallEndReason,
  ended_by: EndedBy,
  answered_at: DateTime.nullable(),
  ended_at: DateTime,
  /** Wall seconds from answer to hang-up; 0 when never answered. */
  duration_seconds: z.number().min(0),
  /**
   * What the agent said, each with the moment (ISO) it began. A line the callee talked over is cut
   * where the agent stopped, and says so (`interrupted`).
   */
  spoken: z
    .array(z.object({ text: z.string(), at: DateTime, interrupted: z.boolean().default(false) }))
    .max(MAX_CONVERSATION_LINES),
  /**
   * What the callee said as the recogniser heard it, each with the moment (ISO) they began and the
   * recogniser's confidence (0 to 1). Empty for calls without a conversation.
   */
  heard: z
    .array(z.object({ text: z.string().max(2000), at: DateTime, confidence: z.number().min(0).max(1) }))
    .max(MAX_CONVERSATION_LINES)
    .default([]),
  /**
   * Keys the callee pressed after the answer (RFC 4733 telephone events), each with the moment (ISO)
   * its first packet arrived, in that order. Bounded: a caller holding a key down cannot grow it.
   * Absent from events of instances older than the field: none.
   */
  dtmf: z
    .array(z.object({ digit: z.string().regex(/^[0-9*#A-D]$/), at: DateTime }))
    .max(MAX_DTMF_DIGITS)
    .default([]),
  /** A recording of the call was put in the recording store under the call's id. */
  recorded: z.boolean(),
  /** Why, in words, when the network gave no SIP answer (media timeout, instance lost, ...). */
  detail: z.string().max(500).nullable(),
  conversation: SipConversationResult.nullable().default(null),
});
export type SipCallEnd = z.infer<typeof SipCallEnd>;

/**
 * One step of a SIP call. `sequence` grows per call (1, 2, ...): a consumer ignores a step it has
 * already applied. `ended` is last and carries `end`.
 */
export const SipCallProgress = z.object({
  call_id: Uuid,
  sequence: z.number().int().min(1),
  type: SipProgressType,
  at: DateTime,
  sip_code: z.number().int().min(100).max(699).nullable(),
  sip_reason: z.string().max(200).nullable(),
  end: SipCallEnd.nullable(),
});
export type SipCallProgress = z.infer<typeof SipCallProgress>;
