import type { AgentSnapshot, Call, EndpointEventBody, EndpointEventKind } from '@voice/shared/contracts';
import { callEndedPayload, type PayloadLinks } from './payload';
import { sampleCallEndedPayload } from './sample-call';

/** What an endpoint event is about, before it is wrapped. */
export interface EndpointOccurrence {
  kind: EndpointEventKind;
  eventId: string;
  occurredAt: string;
  accountId: string;
  data: unknown;
}

/** The documented envelope of every endpoint delivery (ENDPOINT_EVENT_PAYLOADS). */
export function endpointBody(occurrence: EndpointOccurrence): EndpointEventBody {
  return {
    event: occurrence.kind,
    event_id: occurrence.eventId,
    occurred_at: occurrence.occurredAt,
    account_id: occurrence.accountId,
    data: occurrence.data,
  };
}

/** A call as endpoint events carry it: CALL_ENDED's data shape, whatever the call's status. */
export function endpointCallData(call: Call, links: PayloadLinks) {
  return callEndedPayload(call, links).data;
}

/** The call a test event is about: fictional, named after nothing real. */
const TEST_AGENT: AgentSnapshot = {
  id: '00000000-0000-4000-8000-000000000000',
  name: 'Test agent',
  agent_type: 'test',
  industry: null,
  goal: 'Show what a CALL_ENDED looks like',
  collects: [],
  language: 'en',
  voice: 'test',
  ai_model: 'test',
  start_flow: 'Hello, this is a test call.',
  end_flow: 'Thanks, goodbye.',
  prompt: '',
  prompt_hash: '',
  prompt_version_id: null,
};

/** The data of an endpoint's test event: a sample CALL_ENDED's, `"test": true` in metadata. */
export function sampleEndpointCallData(ids: { callId: string; sessionId: string }, links: PayloadLinks) {
  return sampleCallEndedPayload(TEST_AGENT, ids, links).data;
}
