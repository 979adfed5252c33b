import { type AgentSnapshot, type Call, SIMULATED_SIP_RESPONSES } from '@voice/shared/contracts';
import { type CallEndedBody, callEndedPayload, type PayloadLinks } from './payload';

/** The number a test event reports as dialed: a reserved fictional number, never a real subscriber. */
export const TEST_EVENT_NUMBER = '+15555550100';
const TEST_DURATION_SECONDS = 42;

/**
 * The body of a test event: a CALL_ENDED shaped exactly like a real one, built for this agent (its
 * type, flows and the details it collects), marked `"test": true` in data.metadata. It names no
 * real call, so it carries no recording link (`""`).
 */
export function sampleCallEndedPayload(
  agent: AgentSnapshot,
  ids: { callId: string; sessionId: string },
  links: PayloadLinks,
): CallEndedBody {
  const endedAt = new Date(links.now ?? Date.now());
  const startedAt = new Date(endedAt.getTime() - TEST_DURATION_SECONDS * 1000);
  // Transcript timestamps are clock times (HH:MM:SS UTC), like a real call's.
  const clock = (seconds: number) =>
    new Date(startedAt.getTime() + seconds * 1000).toISOString().slice(11, 19);
  const call: Call = {
    id: ids.callId,
    session_id: ids.sessionId,
    status: 'completed',
    phone_number: TEST_EVENT_NUMBER,
    source_number: TEST_EVENT_NUMBER,
    direction: 'outbound',
    agent: { id: agent.id, name: agent.name },
    agent_id: agent.id,
    agent_type: agent.agent_type,
    user_id: '',
    campaign_id: null,
    metadata: { test: true },
    created_at: startedAt.toISOString(),
    started_at: startedAt.toISOString(),
    answered_at: startedAt.toISOString(),
    ended_at: endedAt.toISOString(),
    duration: TEST_DURATION_SECONDS,
    duration_seconds: TEST_DURATION_SECONDS,
    duration_minutes: Math.round((TEST_DURATION_SECONDS / 60) * 100) / 100,
    transcript: [
      { role: 'agent', content: agent.start_flow, timestamp: clock(0) },
      { role: 'user', content: 'Hi, yes, this is a good time.', timestamp: clock(6) },
      { role: 'agent', content: agent.end_flow, timestamp: clock(38) },
    ],
    recording_url: '',
    sentiment: 'positive',
    call_summary: `Test event for agent "${agent.name}": no call was placed.`,
    call_end_reason: 'conversation_completed',
    ended_by: 'agent',
    details_collection: {
      status: agent.collects.length === 0 ? 'none' : 'partial',
      score: 0,
      collected_details: [],
      collected_values: {},
    },
    ai_cost: 0,
    telephony_cost: 0,
    total_cost: 0,
    cost_currency: 'USD',
    prompt_version_id: agent.prompt_version_id,
    prompt_hash: agent.prompt_hash,
    telephony: {
      carrier: 'simulated',
      trunk_id: null,
      sip_code: SIMULATED_SIP_RESPONSES.completed.code,
      sip_reason: SIMULATED_SIP_RESPONSES.completed.reason,
    },
    opted_out: false,
  };
  const payload = callEndedPayload(call, links);
  return { ...payload, data: { ...payload.data, recording_url: '' } };
}
