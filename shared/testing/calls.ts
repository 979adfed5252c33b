import type { Call } from '../src/contracts/call';

/** A finished call record as the contract describes it, for tests of what consumes one. */
export function sampleCall(overrides: Partial<Call> = {}): Call {
  const id = overrides.id ?? '11111111-1111-4111-8111-111111111111';
  return {
    id,
    session_id: id,
    status: 'completed',
    phone_number: '+14155550123',
    source_number: '+14155550100',
    direction: 'outbound',
    agent: { id: '22222222-2222-4222-8222-222222222222', name: 'Riley' },
    agent_id: '22222222-2222-4222-8222-222222222222',
    agent_type: 'sales',
    user_id: 'acct',
    campaign_id: null,
    metadata: null,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    answered_at: '2026-01-01T00:00:05.000Z',
    ended_at: '2026-01-01T00:01:05.000Z',
    duration: 60,
    duration_seconds: 60,
    duration_minutes: 1,
    transcript: [{ role: 'agent', content: 'Hi', timestamp: '00:00:01' }],
    recording_url: '',
    sentiment: 'positive',
    call_summary: 'A call.',
    call_end_reason: 'customer_hung_up',
    ended_by: 'user',
    details_collection: { status: 'complete', score: 1, collected_details: ['name'], collected_values: {} },
    ai_cost: 0.1,
    telephony_cost: 0.05,
    total_cost: 0.15,
    cost_currency: 'USD',
    prompt_version_id: null,
    prompt_hash: 'abc',
    telephony: { carrier: 'simulated', trunk_id: null, sip_code: 200, sip_reason: 'OK' },
    opted_out: false,
    ...overrides,
  };
}
