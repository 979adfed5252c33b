import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessBus } from '../src/bus';
import { type Call, EVENTS, eventSubject } from '../src/contracts';
import { eventEnvelope } from '../src/db/outbox';
import { consumeCallEnded } from '../src/service/call-ended';

type LogLine = Record<string, unknown> & { msg: string; level: number };
const ACCOUNT = '33333333-3333-4333-8333-333333333333';
const CAMPAIGN = '44444444-4444-4444-8444-444444444444';

function call(id: string, campaignId: string | null): Call {
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
    user_id: ACCOUNT,
    campaign_id: campaignId,
    metadata: null,
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    answered_at: '2026-01-01T00:00:05.000Z',
    ended_at: '2026-01-01T00:01:05.000Z',
    duration: 60,
    duration_seconds: 60,
    duration_minutes: 1,
    transcript: [],
    recording_url: null,
    sentiment: 'positive',
    call_summary: 'A call.',
    call_end_reason: null,
    ended_by: 'user',
    details_collection: null,
    ai_cost: 0.1,
    telephony_cost: 0.05,
    total_cost: 0.15,
    cost_currency: 'USD',
    prompt_version_id: null,
    prompt_hash: 'abc',
  };
}

describe('consumeCallEnded', () => {
  const buses: InProcessBus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  async function publishEnded(bus: InProcessBus, id: string, data: unknown): Promise<void> {
    const subject = eventSubject(EVENTS.callEnded, ACCOUNT, id);
    const envelope = eventEnvelope({ subject, accountId: ACCOUNT, data });
    await bus.publishDurable(subject, envelope, { msgId: envelope.id });
  }

  it('hands a campaign consumer only campaign calls, acking the others unread', async () => {
    const lines: LogLine[] = [];
    const log = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
    );
    const bus = new InProcessBus({ requestTimeoutMs: 2_000, log });
    buses.push(bus);
    const handled: string[] = [];
    await consumeCallEnded({
      bus,
      log,
      durable: 'campaign-only',
      campaignCallsOnly: true,
      retryDelayMs: () => 10,
      handle: async ({ call }) => void handled.push(call.id),
    });
    const direct = '55555555-5555-4555-8555-555555555555';
    const fromCampaign = '66666666-6666-4666-8666-666666666666';
    const brokenDirect = '77777777-7777-4777-8777-777777777777';
    const brokenCampaign = '88888888-8888-4888-8888-888888888888';
    // publishDurable resolves once the consumer acked each one.
    await publishEnded(bus, direct, { call: call(direct, null) });
    await publishEnded(bus, fromCampaign, { call: call(fromCampaign, CAMPAIGN) });
    await publishEnded(bus, brokenDirect, { call: { id: brokenDirect } });
    await publishEnded(bus, brokenCampaign, { call: { id: brokenCampaign, campaign_id: CAMPAIGN } });
    await vi.waitFor(() => expect(handled).toEqual([fromCampaign]));
    // Only the broken campaign call was read, and refused by the contract.
    const refused = lines.filter((l) => l.msg === 'CALL_ENDED event outside its contract: dropped');
    expect(refused).toHaveLength(1);
  });
});
