import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessBus } from '../src/bus';
import { type Call, EVENTS, eventSubject } from '../src/contracts';
import { eventEnvelope } from '../src/db/outbox';
import { consumeCallEnded } from '../src/service/call-ended';
import { sampleCall } from '../testing';

type LogLine = Record<string, unknown> & { msg: string; level: number };
const ACCOUNT = '33333333-3333-4333-8333-333333333333';
const CAMPAIGN = '44444444-4444-4444-8444-444444444444';
const AGENT = '22222222-2222-4222-8222-222222222222';

function call(id: string, campaignId: string | null): Call {
  return sampleCall({ id, user_id: ACCOUNT, campaign_id: campaignId });
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

  it('hands on only the events its glance wants, acking the others unread', async () => {
    const lines: LogLine[] = [];
    const log = pino(
      { level: 'debug' },
      { write: (line: string) => lines.push(JSON.parse(line) as LogLine) },
    );
    const bus = new InProcessBus({ requestTimeoutMs: 2_000, log });
    buses.push(bus);
    const handled: string[] = [];
    const glanced: (string | null)[] = [];
    await consumeCallEnded({
      bus,
      log,
      durable: 'campaign-only',
      wants: ({ accountId, agentId, campaignId }) => {
        expect({ accountId, agentId }).toEqual({ accountId: ACCOUNT, agentId: AGENT });
        glanced.push(campaignId);
        return campaignId !== null;
      },
      retryDelayMs: () => 10,
      handle: async ({ call }) => void handled.push(call.id),
    });
    const direct = '55555555-5555-4555-8555-555555555555';
    const fromCampaign = '66666666-6666-4666-8666-666666666666';
    const brokenDirect = '77777777-7777-4777-8777-777777777777';
    const brokenCampaign = '88888888-8888-4888-8888-888888888888';
    const unreadable = '99999999-9999-4999-8999-999999999999';
    // publishDurable resolves once the consumer acked each one.
    await publishEnded(bus, direct, { call: call(direct, null) });
    await publishEnded(bus, fromCampaign, { call: call(fromCampaign, CAMPAIGN) });
    await publishEnded(bus, brokenDirect, { call: { id: brokenDirect, agent_id: AGENT, campaign_id: null } });
    await publishEnded(bus, brokenCampaign, {
      call: { id: brokenCampaign, agent_id: AGENT, campaign_id: CAMPAIGN },
    });
    await publishEnded(bus, unreadable, { call: { id: unreadable, agent_id: 'not an id' } });
    await vi.waitFor(() => expect(handled).toEqual([fromCampaign]), { timeout: 15_000, interval: 20 });
    expect(glanced).toEqual([null, CAMPAIGN, null, CAMPAIGN]);
    // Read and refused by the contract: the broken campaign call, and the one with no readable ids.
    const refused = lines.filter((l) => l.msg === 'CALL_ENDED event outside its contract: dropped');
    expect(refused.map((l) => l.event_id)).toHaveLength(2);
  });
});
