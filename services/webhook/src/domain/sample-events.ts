import { randomUUID } from 'node:crypto';
import type { AgentSnapshot, Campaign, CampaignContact, EndpointEventKind } from '@voice/shared/contracts';
import type { PayloadLinks } from './payload';
import { sampleCallEndedPayload, TEST_EVENT_NUMBER } from './sample-call';

/** The agent of every endpoint test event: fictional, named after nothing real. */
const TEST_AGENT: AgentSnapshot = {
  id: '00000000-0000-4000-8000-000000000000',
  name: 'Test agent',
  agent_type: 'test',
  industry: null,
  goal: 'Show what an endpoint event looks like',
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

const TEST_CAMPAIGN_NAME = 'Test campaign (no call was placed)';
const TEST_CAMPAIGN_SIZE = 3;

/** A test call at the moment of `kind`: ringing (not answered), answered (no end yet), or ended. */
function sampleCallData(kind: 'CALL_RINGING' | 'CALL_ANSWERED' | 'CALL_ENDED', links: PayloadLinks) {
  const ended = sampleCallEndedPayload(
    TEST_AGENT,
    { callId: randomUUID(), sessionId: randomUUID() },
    links,
  ).data;
  if (kind === 'CALL_ENDED') return ended;
  const notEnded = {
    ...ended,
    ended_at: null,
    duration_seconds: 0,
    duration_minutes: 0,
    call_summary: null,
    call_end_reason: null,
    ended_by: null,
    details_collection: null,
    ai_cost: 0,
    telephony_cost: 0,
    total_cost: 0,
  };
  if (kind === 'CALL_ANSWERED')
    return { ...notEnded, status: 'in_progress', transcript: ended.transcript.slice(0, 1) };
  return { ...notEnded, status: 'ringing', started_at: null, transcript: [] };
}

type CampaignEventKind = Exclude<
  EndpointEventKind,
  'CALL_RINGING' | 'CALL_ANSWERED' | 'CALL_ENDED' | 'CONTACT_EXHAUSTED'
>;

/** The status a campaign has right after each lifecycle event. */
const STATUS_AFTER: Record<CampaignEventKind, Campaign['status']> = {
  CAMPAIGN_STARTED: 'running',
  CAMPAIGN_PAUSED: 'paused',
  CAMPAIGN_RESUMED: 'running',
  CAMPAIGN_COMPLETED: 'completed',
  CAMPAIGN_CANCELLED: 'cancelled',
};

/** A fictional campaign as it stands right after `kind`; its counts add up to its contacts. */
function sampleCampaign(kind: CampaignEventKind, now: Date): Campaign {
  const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
  const finished = kind === 'CAMPAIGN_COMPLETED' || kind === 'CAMPAIGN_CANCELLED';
  const done = kind === 'CAMPAIGN_STARTED' ? 0 : kind === 'CAMPAIGN_COMPLETED' ? TEST_CAMPAIGN_SIZE : 1;
  const cancelled = kind === 'CAMPAIGN_CANCELLED' ? TEST_CAMPAIGN_SIZE - done : 0;
  return {
    id: randomUUID(),
    name: TEST_CAMPAIGN_NAME,
    agent_id: TEST_AGENT.id,
    phone_number: TEST_EVENT_NUMBER,
    phone_column: 'phone',
    max_concurrent_calls: 1,
    retry_config: { on_statuses: ['no_answer', 'busy'], max_retries: 1, interval_seconds: 300 },
    calling_window: null,
    status: STATUS_AFTER[kind],
    counts: {
      total: TEST_CAMPAIGN_SIZE,
      pending: TEST_CAMPAIGN_SIZE - done - cancelled,
      in_progress: 0,
      completed: done,
      no_answer: 0,
      failed: 0,
      voicemail: 0,
      busy: 0,
      skipped: 0,
      cancelled,
    },
    start_at: null,
    created_at: at(10),
    started_at: at(9),
    finished_at: finished ? now.toISOString() : null,
  };
}

/** A fictional contact whose last allowed attempt was not answered. */
function sampleExhaustedContact(now: Date): { campaign_id: string; contact: CampaignContact } {
  const campaignId = randomUUID();
  return {
    campaign_id: campaignId,
    contact: {
      id: randomUUID(),
      campaign_id: campaignId,
      position: 0,
      phone_number: TEST_EVENT_NUMBER,
      data: { name: 'Test contact', test: true },
      state: 'no_answer',
      attempts: 2,
      call_ids: [randomUUID(), randomUUID()],
      skip_reason: null,
      failure_reason: null,
      next_attempt_at: null,
      updated_at: now.toISOString(),
    },
  };
}

/**
 * The data of an endpoint's test event of `kind`, shaped exactly like a real one's
 * (ENDPOINT_EVENT_PAYLOADS) and about nothing real: a call to a reserved fictional number with
 * `"test": true` in its metadata, or a campaign named as a test (its contact says `test: true`).
 */
export function sampleEndpointData(kind: EndpointEventKind, links: PayloadLinks): unknown {
  const now = new Date(links.now ?? Date.now());
  switch (kind) {
    case 'CALL_RINGING':
    case 'CALL_ANSWERED':
    case 'CALL_ENDED':
      return sampleCallData(kind, links);
    case 'CONTACT_EXHAUSTED':
      return sampleExhaustedContact(now);
    case 'CAMPAIGN_STARTED':
    case 'CAMPAIGN_PAUSED':
    case 'CAMPAIGN_RESUMED':
    case 'CAMPAIGN_COMPLETED':
    case 'CAMPAIGN_CANCELLED':
      return sampleCampaign(kind, now);
  }
}
