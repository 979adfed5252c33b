import { type Call, EVENTS, eventFilter } from '@voice/shared';
import { infraModes } from '@voice/shared/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, type TestAccount } from '../support/accounts';
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from '../support/harness';
import { api, type Envelope } from '../support/http';

type Provider = NonNullable<TestPlatformOptions['callProvider']>;
type Deliver = Parameters<Provider['dial']>[1];
type Session = ReturnType<Provider['dial']>;
type CarrierEvent = Parameters<Deliver>[0];
type Ended = Extract<CarrierEvent, { type: 'ended' }>;

const FINAL = ['completed', 'no_answer', 'failed', 'voicemail', 'busy'];
const MAX_CALL_SECONDS = 1;
const GRACE_MS = 500;

/**
 * A telephone network whose calls connect and then never end: it delivers 'ringing' and
 * 'answered', then goes silent until the call is hung up, when (as a carrier does) it reports the
 * system's hang-up as the call's end.
 */
class StuckNetwork implements Provider {
  readonly maxCallSeconds = MAX_CALL_SECONDS;
  readonly info = { provider: 'sip' as const, time_scale: null, test_numbers: null, other_numbers: null };
  readonly hungUp: string[] = [];

  dial(request: Parameters<Provider['dial']>[0], onEvent: Deliver): Session {
    let hangUp!: () => void;
    const hungUp = new Promise<void>((resolve) => {
      hangUp = resolve;
    });
    const done = (async () => {
      await onEvent({ type: 'ringing', at: new Date() });
      const answeredAt = new Date();
      await onEvent({ type: 'answered', at: answeredAt, sip: { code: 200, reason: 'OK' } });
      await hungUp;
      await onEvent(cancelled(answeredAt)).catch(() => undefined);
    })();
    return {
      done,
      hangUp: async () => {
        this.hungUp.push(request.callId);
        hangUp();
        await done;
      },
    };
  }

  resume(request: Parameters<Provider['dial']>[0], _stage: unknown, onEvent: Deliver): Session {
    // Repeats of events already stored change nothing, so resuming is dialing again here.
    return this.dial(request, onEvent);
  }

  recording(): never {
    throw new Error('this network records nothing');
  }
}

function cancelled(answeredAt: Date): Ended {
  const at = new Date();
  return {
    type: 'ended',
    at,
    result: {
      status: 'completed',
      answered_at: answeredAt,
      ended_at: at,
      duration_seconds: Math.floor((at.getTime() - answeredAt.getTime()) / 1000),
      transcript: [],
      sentiment: 'neutral',
      call_summary: 'Hung up by the system.',
      call_end_reason: 'cancelled',
      ended_by: 'system',
      details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
      opted_out: false,
      ai_cost: 0,
      telephony_cost: 0,
      total_cost: 0,
      sip: null,
    },
  };
}

describe.each(infraModes())('the stuck-call reaper (%s)', (mode) => {
  let t: TestPlatform;
  let acme: TestAccount;
  let agentId: string;
  const network = new StuckNetwork();

  beforeAll(async () => {
    t = await startTestPlatform(mode, {
      callProvider: network,
      // The keeper passes every lease/3 (1 s); stuck after 1 s of call plus 0.5 s.
      config: { CALL_STUCK_GRACE_MS: GRACE_MS, CALL_LEASE_SECONDS: 3, SIM_TIME_SCALE: 1 },
    });
    acme = await createAccount(t, { name: 'Acme' });
    const agent = await api<Envelope<{ id: string }>>(t.url, 'POST', '/v1/agents', {
      key: acme.key,
      body: { name: 'Riley', start_flow: 'Hi, this is Riley.', end_flow: 'Goodbye!' },
    });
    expect(agent.status).toBe(201);
    agentId = agent.body.data.id;
  });
  afterAll(async () => t?.stop());

  const get = async (id: string) => {
    const res = await api<Envelope<Call>>(t.url, 'GET', `/v1/calls/${id}`, { key: acme.key });
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('ends a call that never ends as failed (timeout) once, after max duration plus grace', async () => {
    const bus = t.platform.infrastructure.bus;
    const statuses: string[] = [];
    const ended: Call[] = [];
    const subs = [
      bus.subscribe(eventFilter(EVENTS.callStatusChanged, acme.accountId), (msg) => {
        statuses.push((msg.data as { data: { status: string } }).data.status);
      }),
      bus.subscribe(eventFilter(EVENTS.callEnded, acme.accountId), (msg) => {
        ended.push((msg.data as { data: { call: Call } }).data.call);
      }),
    ];
    try {
      const placed = await api<Envelope<Call>>(t.url, 'POST', '/v1/call', {
        key: acme.key,
        body: { agent_id: agentId, source_number: '+14155550100', phone_number: '+14155551234' },
      });
      expect(placed.status).toBe(201);
      const id = placed.body.data.id;

      // Connected, and left alone while its longest plausible run lasts (reaped within seconds;
      // the deadline leaves a loaded machine its stalls).
      const deadline = Date.now() + 30_000;
      let call = await get(id);
      while (!FINAL.includes(call.status) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        call = await get(id);
      }
      expect(call).toMatchObject({
        status: 'failed',
        call_end_reason: 'timeout',
        ended_by: 'system',
      });
      expect(call.answered_at).not.toBeNull();
      const lasted = Date.parse(call.ended_at!) - Date.parse(call.started_at!);
      expect(lasted).toBeGreaterThanOrEqual(MAX_CALL_SECONDS * 1000 + GRACE_MS);
      expect(call.duration_seconds).toBeGreaterThanOrEqual(1);
      // Duration counts from the answer to the reaper's end, per started second; costs follow it.
      const connectedMs = Date.parse(call.ended_at!) - Date.parse(call.answered_at!);
      expect(call.duration_seconds).toBe(Math.ceil(connectedMs / 1000));
      expect(call.total_cost).toBeGreaterThan(0);
      expect(call.total_cost).toBeCloseTo(call.ai_cost + call.telephony_cost, 4);
      // Ended with no conversation read and no final answer of its own: what the answer brought stays.
      expect(call.sentiment).toBe('neutral');
      expect(call.telephony).toEqual({ carrier: 'sip', trunk_id: null, sip_code: 200, sip_reason: 'OK' });
      expect(network.hungUp).toEqual([id]);

      // The events leave through the outbox, after the row changed: wait for them to arrive.
      await vi.waitFor(
        () => {
          expect(ended.length).toBeGreaterThanOrEqual(1);
          expect(statuses.length).toBeGreaterThanOrEqual(3);
        },
        { timeout: 30_000, interval: 20 },
      );
      // Further keeper passes, and the network's own report of the hang-up, change nothing.
      await new Promise((r) => setTimeout(r, 1500));
      const { recording_url: _link, ...record } = call;
      expect(await get(id)).toMatchObject(record);
      // The end is announced by CALL_ENDED alone (live subscribers read it as the last status).
      expect(statuses).toEqual(['initializing', 'ringing', 'in_progress']);
      expect(ended).toHaveLength(1);
      expect(ended[0]).toMatchObject({
        id,
        status: 'failed',
        call_end_reason: 'timeout',
        ended_by: 'system',
      });
      expect(network.hungUp).toEqual([id]);
    } finally {
      await Promise.all(subs.map((s) => s.unsubscribe()));
    }
  });
});
