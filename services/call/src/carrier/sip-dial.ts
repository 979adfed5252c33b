import { SIP_TRUNK_LIMITS, SipConversation, type SipDialRequest } from '@voice/shared';
import type { DialRequest } from './types';

/**
 * The longest the telephony service may hold a call before its answer, in seconds: the wait for a
 * free line of the trunk (10 minutes at most, docs/telephony.md "Admission") and the longest ring
 * a trunk may be given.
 */
export const SIP_BEFORE_ANSWER_SECONDS = 600 + SIP_TRUNK_LIMITS.ringTimeoutSeconds.max;
/** Left after the conversation's time is up, for the agent's goodbye and the hang-up. */
export const SIP_GOODBYE_SECONDS = 60;

const { minValue, maxValue } = SipConversation.shape.max_duration_seconds;

/**
 * How long a conversation may last after the answer, so that a call dialed, held for a line, rung
 * and talked to its limit is over before the reaper's bound (`maxCallSeconds`, SIP_MAX_CALL_SECONDS,
 * counted from dialing) ends it as stuck. A bound shorter than the time before an answer leaves
 * the contract's shortest conversation.
 */
export function conversationSeconds(maxCallSeconds: number): number {
  const seconds = Math.floor(maxCallSeconds - SIP_BEFORE_ANSWER_SECONDS - SIP_GOODBYE_SECONDS);
  return Math.min(maxValue ?? seconds, Math.max(minValue ?? 0, seconds));
}

/**
 * What the telephony service is asked to dial: the agent's speech, and what its conversation
 * engine needs (who the agent is, what it collects, its prompt and model, the call's metadata).
 */
export function sipDialBody(request: DialRequest, prompt: string, maxCallSeconds: number): SipDialRequest {
  const { agent } = request;
  return {
    call_id: request.callId,
    trunk_id: request.trunkId!,
    source_number: request.from,
    destination_number: request.to,
    speech: {
      language: agent.language,
      voice: agent.voice ?? null,
      start_flow: agent.start_flow,
      end_flow: agent.end_flow,
    },
    conversation: {
      agent_name: agent.name,
      agent_type: agent.agent_type,
      goal: agent.goal,
      prompt,
      ai_model: agent.ai_model ?? '',
      collects: agent.collects,
      metadata: request.metadata,
      max_duration_seconds: conversationSeconds(maxCallSeconds),
    },
  };
}
