import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { CallEndReason, DetailsCollection, EndedBy, TranscriptEntry } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import {
  type AgentSnapshot,
  type CarrierEvent,
  cutShort,
  type DialRequest,
  MAX_CALL_SECONDS,
  planCall,
  RATES,
  SimulatedCarrier,
  synthesizeRecording,
} from '../src/carrier/index';

/** A sales agent collecting one item of every field type (required and optional mixed). */
const AGENT: AgentSnapshot = {
  id: '5b0f8f7e-3c55-4c1b-9d8f-0b1d6a4f9e21',
  name: 'Maya from Acme Solar',
  agent_type: 'sales',
  goal: 'Turn an interested prospect into a purchase, a signed-up trial or a booked sales meeting.',
  language: 'en',
  start_flow: 'Hi, this is Maya from Acme Solar. Is now a good time to talk about your solar quote?',
  end_flow: 'Thanks so much for your time. Have a great day!',
  collects: [
    {
      name: 'interest_level',
      type: 'enum',
      description: 'How interested the prospect is after the pitch.',
      required: true,
      options: ['high', 'medium', 'low', 'none'],
    },
    { name: 'email', type: 'email', description: 'Email address to send the offer to.', required: true },
    { name: 'callback_number', type: 'phone', description: 'Best number to call back.', required: true },
    { name: 'budget', type: 'number', description: 'Budget for the purchase.', required: false },
    {
      name: 'is_decision_maker',
      type: 'boolean',
      description: 'Whether the person on the call can make the decision.',
      required: false,
    },
    { name: 'decision_date', type: 'date', description: 'When they expect to decide.', required: false },
    { name: 'meeting_datetime', type: 'datetime', description: 'Follow-up meeting booked.', required: false },
    { name: 'current_solution', type: 'string', description: 'What they use today.', required: false },
  ],
};

/** Mid-day, so a call never crosses midnight and HH:MM:SS compares as text. */
const NOON = new Date('2025-03-04T12:00:00.000Z');

function request(over: Partial<DialRequest> = {}): DialRequest {
  return {
    callId: 'call-1',
    from: '+14155550100',
    to: '+14155551234',
    agent: AGENT,
    metadata: { name: 'Dana Lee' },
    startedAt: NOON,
    ...over,
  };
}

const clock = (d: Date): string => d.toISOString().slice(11, 19);
const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
const E164 = /^\+[1-9]\d{7,14}$/;

/** A completed call: rang, was answered, and the agent ended the conversation. */
function expectConversationByAgent(plan: ReturnType<typeof planCall>): void {
  const r = plan.result;
  expect([r.status, r.call_end_reason, r.ended_by]).toEqual(['completed', 'conversation_completed', 'agent']);
  expect(plan.events.map((e) => e.type)).toEqual(['ringing', 'answered', 'ended']);
}

describe('planCall: outcome by test number', () => {
  it.each([
    ['0001', 'no_answer', 'no_answer', 'carrier', { code: 480, reason: 'Temporarily Unavailable' }],
    ['0002', 'busy', 'busy', 'carrier', { code: 486, reason: 'Busy Here' }],
    ['0004', 'failed', 'carrier_error', 'carrier', { code: 503, reason: 'Service Unavailable' }],
  ] as const)('…%s is an unanswered %s', (tail, status, reason, by, sip) => {
    const plan = planCall(request({ to: `+1415555${tail}` }));
    const r = plan.result;
    expect([r.status, r.call_end_reason, r.ended_by]).toEqual([status, reason, by]);
    expect(r.sip).toEqual(sip);
    expect(r.answered_at).toBeNull();
    expect(r.duration_seconds).toBe(0);
    expect(r.transcript).toEqual([]);
    // No conversation: neutral, never null (the spec types sentiment as one of three strings).
    expect(r.sentiment).toBe('neutral');
    expect(r.details_collection).toEqual({
      status: 'none',
      score: 0,
      collected_details: [],
      collected_values: {},
    });
    expect([r.ai_cost, r.telephony_cost, r.total_cost]).toEqual([0, 0, 0]);
    expect(plan.events.some((e) => e.type === 'answered')).toBe(false);
    // A failed call never rings: it could not be connected.
    expect(plan.events.map((e) => e.type)).toEqual(status === 'failed' ? ['ended'] : ['ringing', 'ended']);
    const ringMs = r.ended_at.getTime() - NOON.getTime();
    if (status === 'no_answer') expect(ringMs).toBeGreaterThanOrEqual(25_000);
    if (status === 'busy') expect(ringMs).toBeLessThan(6_000);
    if (status === 'failed') expect(ringMs).toBeLessThanOrEqual(2_000);
  });

  it('…0003 is voicemail: picked up by the machine, agent lines only, no answered event', () => {
    const plan = planCall(request({ to: '+14155550003' }));
    const r = plan.result;
    expect([r.status, r.call_end_reason, r.ended_by]).toEqual(['voicemail', 'voicemail_detected', 'agent']);
    expect(plan.events.map((e) => e.type)).toEqual(['ringing', 'ended']);
    expect(r.answered_at).not.toBeNull();
    expect(r.duration_seconds).toBe(
      Math.ceil((r.ended_at.getTime() - (r.answered_at?.getTime() ?? 0)) / 1000),
    );
    expect(r.duration_seconds).toBeGreaterThan(0);
    // Answered by the machine (200 OK); a message left is no conversation to read a mood from.
    expect(r.sip).toEqual({ code: 200, reason: 'OK' });
    expect(r.sentiment).toBe('neutral');
    expect(r.transcript.length).toBeGreaterThan(0);
    expect(r.transcript.every((l) => l.role === 'agent')).toBe(true);
    expect(r.transcript.at(-1)?.content).toBe(AGENT.end_flow);
    expect(r.transcript[0]?.content).toContain('Dana');
    expect(r.details_collection.status).toBe('none');
    expect(r.ai_cost).toBeGreaterThan(0);
  });

  it('any other number completes: answered, talked, ended by the agent', () => {
    const plan = planCall(request());
    const r = plan.result;
    expectConversationByAgent(plan);
    expect(r.answered_at).not.toBeNull();
    expect(r.duration_seconds).toBe((r.ended_at.getTime() - (r.answered_at?.getTime() ?? 0)) / 1000);
    expect(Number.isInteger(r.duration_seconds)).toBe(true);
    expect(r.duration_seconds).toBeGreaterThan(20);
    expect(r.sentiment).toMatch(/^(positive|neutral|negative)$/);
    expect(r.sip).toEqual({ code: 200, reason: 'OK' });
    expect(r.call_summary).toMatch(/^Sales call to Dana Lee/);
    for (const entry of r.transcript) TranscriptEntry.parse(entry);
    DetailsCollection.parse(r.details_collection);
    CallEndReason.parse(r.call_end_reason);
    EndedBy.parse(r.ended_by);
  });
});

describe('planCall: the opt-out test number', () => {
  it('…0005 completes with the contact asking not to be called again: opted out, negative, nothing collected', () => {
    const plan = planCall(request({ to: '+14155550005' }));
    const r = plan.result;
    expectConversationByAgent(plan);
    expect(r.opted_out).toBe(true);
    expect(r.sentiment).toBe('negative');
    expect(r.details_collection).toEqual({
      status: 'none',
      score: 0,
      collected_details: [],
      collected_values: {},
    });
    expect(r.transcript[0]).toMatchObject({ role: 'agent', content: AGENT.start_flow });
    expect(r.transcript.at(-1)).toMatchObject({ role: 'agent', content: AGENT.end_flow });
    const asked = r.transcript.find((l) => l.role === 'user' && /don’t call me again/.test(l.content));
    expect(asked).toBeDefined();
    // Simulated lines were never recognised from audio: no confidence.
    for (const line of r.transcript) expect(line).not.toHaveProperty('confidence');
    expect(r.call_summary).toMatch(/^Sales call to Dana Lee .* asked not to be called again\./);
    expect(r.duration_seconds).toBeGreaterThan(0);
  });

  it('keeps the opt-out only once it was said, and nobody else opts out', () => {
    const plan = planCall(request({ to: '+14155550005' }));
    const answeredMs = (plan.answeredAtMs ?? 0) + 1;
    expect(cutShort(plan, answeredMs, true)).toMatchObject({ status: 'completed', opted_out: false });
    expect(cutShort(plan, plan.endedAtMs, true).opted_out).toBe(true);
    for (let i = 0; i < 50; i++) {
      const r = planCall(request({ callId: `no-opt-out-${i}` })).result;
      expect(r.opted_out).toBe(false);
      expect(r.transcript.some((l) => /don’t call me again/.test(l.content))).toBe(false);
    }
    for (const tail of ['0001', '0002', '0003', '0004']) {
      expect(planCall(request({ to: `+1415555${tail}` })).result.opted_out).toBe(false);
    }
  });
});

describe('planCall: determinism and the conversation', () => {
  it('plans the same call identically and different calls differently', () => {
    expect(planCall(request())).toEqual(planCall(request()));
    const plans = Array.from({ length: 20 }, (_, i) => planCall(request({ callId: `call-${i}` })).result);
    expect(new Set(plans.map((r) => r.duration_seconds)).size).toBeGreaterThan(5);
    expect(new Set(plans.map((r) => JSON.stringify(r.transcript))).size).toBe(20);
  });

  it('opens with start_flow, alternates roles, closes with end_flow, clock times within the call', () => {
    for (let i = 0; i < 50; i++) {
      const r = planCall(request({ callId: `c-${i}` })).result;
      const t = r.transcript;
      expect(t[0]).toMatchObject({ role: 'agent', content: AGENT.start_flow });
      expect(t.at(-1)).toMatchObject({ role: 'agent', content: AGENT.end_flow });
      t.forEach((line, k) => {
        expect(line.role).toBe(k % 2 === 0 ? 'agent' : 'user');
        expect(line.timestamp).toMatch(/^\d{2}:\d{2}:\d{2}$/);
        if (k > 0) expect(line.timestamp >= (t[k - 1]?.timestamp ?? '')).toBe(true);
      });
      expect((t[0]?.timestamp ?? '') >= clock(r.answered_at ?? NOON)).toBe(true);
      expect((t.at(-1)?.timestamp ?? '') <= clock(r.ended_at)).toBe(true);
      // The goal is explained right after the greeting.
      expect(t[2]?.content).toContain('turn an interested prospect into a purchase');
    }
  });

  it('uses the contact’s name from metadata, wherever the caller put it', () => {
    const variants: Record<string, unknown>[] = [
      { name: 'Dana Lee' },
      { first_name: 'Dana' },
      { contact: { name: 'Dana Lee', phone: '+14155551234' }, campaign_id: 'x' },
      { contact: { first_name: 'Dana' } },
    ];
    for (const metadata of variants) {
      const r = planCall(request({ metadata })).result;
      expect(r.transcript.slice(1).some((l) => l.content.includes('Dana'))).toBe(true);
    }
    const anonymous = planCall(request({ metadata: null })).result;
    expect(anonymous.transcript.some((l) => l.content.includes('Dana'))).toBe(false);
    expect(anonymous.call_summary).toContain('+14155551234');
  });

  it('collects every required item on complete calls, with values of the declared types', () => {
    const statuses = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const d = planCall(request({ callId: `collect-${i}` })).result.details_collection;
      statuses.add(d.status);
      const required = AGENT.collects.filter((c) => c.required).map((c) => c.name);
      if (d.status === 'complete') expect(d.collected_details).toEqual(expect.arrayContaining(required));
      else expect(required.some((name) => !d.collected_details.includes(name))).toBe(true);
      expect(Object.keys(d.collected_values)).toEqual(d.collected_details);
      expect(d.score).toBe(Math.round((d.collected_details.length / AGENT.collects.length) * 100) / 100);
      for (const [name, value] of Object.entries(d.collected_values)) {
        const detail = AGENT.collects.find((c) => c.name === name);
        if (!detail) throw new Error(`unknown item ${name}`);
        if (detail.type === 'email') expect(value).toMatch(/^[^\s@]+@[^\s@]+\.[a-z]+$/);
        if (detail.type === 'phone') expect(value).toMatch(E164);
        if (detail.type === 'enum') expect(detail.options).toContain(value);
        if (detail.type === 'number') expect(Number.isFinite(value)).toBe(true);
        if (detail.type === 'boolean') expect(typeof value).toBe('boolean');
        if (detail.type === 'string') expect(typeof value).toBe('string');
        if (detail.type === 'date') {
          expect(value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(Number.isNaN(Date.parse(String(value)))).toBe(false);
        }
        if (detail.type === 'datetime') {
          expect(new Date(String(value)).getTime()).toBeGreaterThan(NOON.getTime());
          expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
        }
      }
    }
    // Both happen across calls: most complete, a reluctant contact sometimes refuses a required item.
    expect(statuses).toEqual(new Set(['complete', 'partial']));
  });

  it('takes a fitting value from metadata and has the contact confirm it', () => {
    const r = planCall(request({ metadata: { name: 'Dana Lee', email: 'dana@acme.test' } })).result;
    expect(r.details_collection.collected_values.email).toBe('dana@acme.test');
    expect(r.transcript.some((l) => l.role === 'agent' && l.content.includes('dana@acme.test'))).toBe(true);
  });

  it('costs follow RATES per second of duration, and total is their sum', () => {
    expect(RATES).toEqual({ telephonyPerMinute: 0.014, aiPerMinute: 0.06 });
    for (let i = 0; i < 50; i++) {
      const r = planCall(
        request({ callId: `cost-${i}`, to: i % 5 === 0 ? '+14155550003' : '+14155551234' }),
      ).result;
      expect(r.ai_cost).toBe(round4((r.duration_seconds * RATES.aiPerMinute) / 60));
      expect(r.telephony_cost).toBe(round4((r.duration_seconds * RATES.telephonyPerMinute) / 60));
      expect(r.total_cost).toBe(round4(r.ai_cost + r.telephony_cost));
      expect(String(r.total_cost).split('.')[1]?.length ?? 0).toBeLessThanOrEqual(4);
    }
  });

  it('no plan lasts longer than maxCallSeconds (2,000 random calls, plus an oversized agent)', () => {
    const limit = MAX_CALL_SECONDS * 1000;
    const numbers = ['+14155551234', '+14155550001', '+14155550002', '+14155550003', '+14155550004'];
    for (let i = 0; i < 2000; i++) {
      const r = planCall(request({ callId: randomUUID(), to: numbers[i % 5] })).result;
      expect(r.ended_at.getTime() - NOON.getTime()).toBeLessThanOrEqual(limit);
      expect(r.duration_seconds).toBeLessThanOrEqual(MAX_CALL_SECONDS);
    }
    const words = (n: number) => Array.from({ length: n }, (_, k) => `word${k}`).join(' ');
    const huge: AgentSnapshot = {
      ...AGENT,
      start_flow: words(400),
      end_flow: words(400),
      goal: words(300),
      collects: Array.from({ length: 60 }, (_, k) => ({
        name: `item_${k}`,
        type: 'string' as const,
        description: `${words(40)}.`,
        required: true,
      })),
    };
    for (let i = 0; i < 50; i++) {
      const plan = planCall(request({ callId: `huge-${i}`, agent: huge }));
      expect(plan.endedAtMs).toBeLessThanOrEqual(limit);
      expect(plan.result.transcript.at(-1)?.content).toBe(huge.end_flow);
      expect(plan.result.details_collection.status).toBe('partial');
    }
  });
});

/**
 * A timer due `ms` after `t0` (Unix ms), standing beside the carrier's own: `firedMs` is when it
 * really fired (ms since `t0`), undefined until then. On a loaded machine a timer fires late; one
 * due at the same moment as the carrier's fires as late, so lateness is measured from it, and "at
 * once" means before a timer of 0 ms could fire.
 */
function referenceTimer(t0: number, ms: number): { firedMs: number | undefined } {
  const reference: { firedMs: number | undefined } = { firedMs: undefined };
  setTimeout(
    () => {
      reference.firedMs = Date.now() - t0;
    },
    Math.max(0, t0 + ms - Date.now()),
  );
  return reference;
}

/** Collects delivered events with the wall time (ms since `t0`) each arrived at. */
function recorder(t0 = Date.now()) {
  const events: { event: CarrierEvent; wallMs: number }[] = [];
  const onEvent = async (event: CarrierEvent) => {
    events.push({ event, wallMs: Date.now() - t0 });
  };
  return { events, onEvent, types: () => events.map((e) => e.event.type) };
}

/** Wall-clock ms at which an offset of the plan falls due at `scale`. */
const dueAt = (startedAt: Date, atMs: number, scale: number) =>
  Math.floor(startedAt.getTime() + atMs * scale);

describe('SimulatedCarrier', () => {
  it('delivers ringing, answered, ended in order at simulated time × timeScale, stamped with that wall time', async () => {
    const scale = 0.002;
    const carrier = new SimulatedCarrier({ timeScale: scale });
    const startedAt = new Date();
    const req = request({ callId: 'dial-1', startedAt });
    const plan = planCall(req, scale);
    const references = plan.events.map((planned) =>
      referenceTimer(startedAt.getTime(), planned.atMs * scale),
    );
    const rec = recorder(startedAt.getTime());
    await carrier.dial(req, rec.onEvent).done;
    expect(rec.types()).toEqual(['ringing', 'answered', 'ended']);
    rec.events.forEach(({ event, wallMs }, k) => {
      const planned = plan.events[k];
      if (!planned) throw new Error('missing planned event');
      expect(event.at.getTime()).toBe(dueAt(startedAt, planned.atMs, scale));
      // Never ahead of the clock it was delivered at.
      expect(event.at.getTime()).toBeLessThanOrEqual(startedAt.getTime() + wallMs);
      expect(wallMs).toBeGreaterThanOrEqual(planned.atMs * scale - 2);
      // Not late: within 150 ms of a timer due at the same moment (one still to fire: earlier).
      const fired = references[k]?.firedMs;
      if (fired !== undefined) expect(wallMs).toBeLessThan(fired + 150);
    });
    const answered = rec.events[1]?.event;
    expect(answered?.type === 'answered' && answered.sip).toEqual({ code: 200, reason: 'OK' });
    const ended = rec.events.at(-1)?.event;
    expect(ended?.type === 'ended' && ended.result).toEqual(plan.result);
  });

  it('at a small time scale reports wall-clock times, a duration and costs that follow them', async () => {
    const scale = 0.01;
    const carrier = new SimulatedCarrier({ timeScale: scale });
    for (const [i, to] of ['+14155551234', '+14155550003', '+14155550001'].entries()) {
      const startedAt = new Date();
      const req = request({ callId: `scaled-${i}`, to, startedAt });
      const rec = recorder(startedAt.getTime());
      await carrier.dial(req, rec.onEvent).done;
      const observed = Date.now();
      const ended = rec.events.at(-1)?.event;
      if (ended?.type !== 'ended') throw new Error('no ended event');
      const r = ended.result;
      // A "60-second" simulated call took well under a second of wall time, and says so.
      expect(r.ended_at.getTime()).toBeLessThanOrEqual(observed);
      expect(r.ended_at.getTime() - startedAt.getTime()).toBe(
        dueAt(startedAt, planCall(req, 1).endedAtMs, scale) - startedAt.getTime(),
      );
      expect(planCall(req, 1).result.ended_at.getTime() - startedAt.getTime()).toBeGreaterThan(10_000);
      if (r.answered_at) {
        const connectedMs = r.ended_at.getTime() - r.answered_at.getTime();
        expect(connectedMs).toBeLessThan(10_000 * scale * 60);
        expect(r.duration_seconds).toBe(Math.ceil(connectedMs / 1000));
        expect(r.duration_seconds).toBeLessThanOrEqual(6);
        for (const line of r.transcript) {
          expect(line.timestamp >= clock(r.answered_at)).toBe(true);
          expect(line.timestamp <= clock(r.ended_at)).toBe(true);
        }
      } else {
        expect(r.duration_seconds).toBe(0);
      }
      expect(r.ai_cost).toBe(round4((r.duration_seconds * RATES.aiPerMinute) / 60));
      expect(r.telephony_cost).toBe(round4((r.duration_seconds * RATES.telephonyPerMinute) / 60));
      expect(r.total_cost).toBe(round4(r.ai_cost + r.telephony_cost));
    }
  });

  it('hangUp mid-call ends it at once as completed, cancelled by the system, transcript cut', async () => {
    // The conversation lasts ~99 simulated s (~10 s of wall time): a hang-up 30 s in leaves it
    // seconds to run, which a loaded machine's stalls cannot use up.
    const scale = 0.1;
    const carrier = new SimulatedCarrier({ timeScale: scale });
    const startedAt = new Date();
    const req = request({ callId: 'hangup-1', startedAt });
    const plan = planCall(req, scale);
    let answeredWall = 0;
    const rec = recorder();
    const session = carrier.dial(req, async (event) => {
      if (event.type === 'answered') answeredWall = Date.now();
      await rec.onEvent(event);
    });
    while (answeredWall === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 30_000 * scale)); // ~30 simulated seconds into the conversation
    const hungUpAt = Date.now();
    await session.hangUp();
    // At once, not the ~7 s of conversation left (a loaded machine may add a second or two).
    expect(Date.now() - hungUpAt).toBeLessThan(3_000);
    expect(rec.types()).toEqual(['ringing', 'answered', 'ended']);
    const ended = rec.events.at(-1)?.event;
    if (ended?.type !== 'ended') throw new Error('no ended event');
    const r = ended.result;
    expect([r.status, r.call_end_reason, r.ended_by]).toEqual(['completed', 'cancelled', 'system']);
    expect(r.answered_at).toEqual(plan.result.answered_at);
    expect(r.sip).toEqual({ code: 200, reason: 'OK' });
    // Ended when it was hung up (wall clock), about 300 ms after the answer: 1 started second.
    expect(r.ended_at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(r.ended_at.getTime()).toBeGreaterThanOrEqual(hungUpAt - 1);
    expect(r.ended_at.getTime() - (r.answered_at?.getTime() ?? 0)).toBeGreaterThanOrEqual(250);
    expect(r.duration_seconds).toBe(
      Math.ceil((r.ended_at.getTime() - (r.answered_at?.getTime() ?? 0)) / 1000),
    );
    expect(r.transcript.length).toBeGreaterThan(0);
    expect(r.transcript.length).toBeLessThan(plan.result.transcript.length);
    expect(r.transcript).toEqual(plan.result.transcript.slice(0, r.transcript.length));
    expect(r.ended_at.getTime()).toBeLessThan(plan.result.ended_at.getTime());
    expect(r.ai_cost).toBe(round4((r.duration_seconds * RATES.aiPerMinute) / 60));
    expect(r.total_cost).toBe(round4(r.ai_cost + r.telephony_cost));
    await session.hangUp(); // idempotent: nothing more is delivered
    expect(rec.events).toHaveLength(3);
  });

  it('hangUp before the answer ends it as failed, cancelled, duration 0', async () => {
    const carrier = new SimulatedCarrier({ timeScale: 0.01 });
    const rec = recorder();
    const session = carrier.dial(request({ callId: 'hangup-2', startedAt: new Date() }), rec.onEvent);
    await session.hangUp();
    expect(rec.types()).toEqual(['ended']);
    const ended = rec.events[0]?.event;
    if (ended?.type !== 'ended') throw new Error('no ended event');
    expect(ended.result).toMatchObject({
      status: 'failed',
      call_end_reason: 'cancelled',
      ended_by: 'system',
      answered_at: null,
      duration_seconds: 0,
      transcript: [],
      total_cost: 0,
      sentiment: 'neutral',
      sip: { code: 487, reason: 'Request Terminated' },
    });
  });

  it('resume from ringing after the answer time delivers answered at once, then ended on time', async () => {
    const scale = 0.01;
    const carrier = new SimulatedCarrier({ timeScale: scale });
    const probe = planCall(request({ callId: 'resume-1' }));
    const answeredAt = probe.answeredAtMs ?? 0;
    // Dialing began long enough ago that the answer (but not the end) is already due.
    const startedAt = new Date(Date.now() - (answeredAt + 2000) * scale);
    const req = request({ callId: 'resume-1', startedAt });
    const plan = planCall(req, scale);
    const t0 = Date.now();
    const rec = recorder(t0);
    const soon = referenceTimer(t0, 0);
    let answeredBeforeAnyTimer = false;
    await carrier.resume(req, 'ringing', async (event) => {
      if (event.type === 'answered') answeredBeforeAnyTimer = soon.firedMs === undefined;
      await rec.onEvent(event);
    }).done;
    expect(rec.types()).toEqual(['answered', 'ended']);
    expect(answeredBeforeAnyTimer, 'answered at once').toBe(true);
    // Stamped with when it was due (in the past), not when it was delivered.
    expect(rec.events[0]?.event.at.getTime()).toBe(dueAt(startedAt, answeredAt, scale));
    const endWall = startedAt.getTime() + plan.endedAtMs * scale - t0;
    expect(rec.events[1]?.wallMs).toBeGreaterThanOrEqual(endWall - 2);
    const ended = rec.events[1]?.event;
    expect(ended?.type === 'ended' && ended.result).toEqual(plan.result);
  });

  it('resume from in_progress past the end delivers just ended, at once', async () => {
    const scale = 0.01;
    const carrier = new SimulatedCarrier({ timeScale: scale });
    const probe = planCall(request({ callId: 'resume-2' }));
    const req = request({
      callId: 'resume-2',
      startedAt: new Date(Date.now() - (probe.endedAtMs + 5000) * scale),
    });
    const rec = recorder();
    const soon = referenceTimer(Date.now(), 0);
    let endedBeforeAnyTimer = false;
    await carrier.resume(req, 'in_progress', async (event) => {
      endedBeforeAnyTimer = soon.firedMs === undefined;
      await rec.onEvent(event);
    }).done;
    expect(rec.types()).toEqual(['ended']);
    // At once: before even a timer of 0 ms fired.
    expect(endedBeforeAnyTimer).toBe(true);
    const ended = rec.events[0]?.event;
    expect(ended?.type === 'ended' && ended.result).toEqual(planCall(req, scale).result);
  });

  it('retries a failed delivery, and gives up (sending nothing more) when it keeps failing', async () => {
    const carrier = new SimulatedCarrier({ timeScale: 0.0005, retry: { attempts: 3, baseDelayMs: 5 } });
    let failures = 0;
    const flaky = recorder();
    await carrier.dial(request({ callId: 'retry-1', startedAt: new Date() }), async (event) => {
      if (event.type === 'answered' && failures++ < 2) throw new Error('database unavailable');
      await flaky.onEvent(event);
    }).done;
    expect(flaky.types()).toEqual(['ringing', 'answered', 'ended']);
    expect(failures).toBe(3);

    const attempts: string[] = [];
    await carrier.dial(request({ callId: 'retry-2', startedAt: new Date() }), async (event) => {
      attempts.push(event.type);
      if (event.type === 'answered') throw new Error('still down');
    }).done;
    expect(attempts).toEqual(['ringing', 'answered', 'answered', 'answered']);
  });

  it('close() stops calls in flight without delivering anything more', async () => {
    const carrier = new SimulatedCarrier({ timeScale: 0.01 });
    const rec = recorder();
    const session = carrier.dial(request({ callId: 'close-1', startedAt: new Date() }), rec.onEvent);
    carrier.close();
    await session.done;
    expect(rec.events).toEqual([]);
  });

  it('rejects a time scale that is not positive', () => {
    expect(() => new SimulatedCarrier({ timeScale: 0 })).toThrow(RangeError);
  });
});

async function drain(stream: NodeJS.ReadableStream): Promise<{ bytes: Buffer; largestChunk: number }> {
  const chunks: Buffer[] = [];
  let largestChunk = 0;
  for await (const chunk of stream as Readable) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    largestChunk = Math.max(largestChunk, buf.length);
    chunks.push(buf);
  }
  return { bytes: Buffer.concat(chunks), largestChunk };
}

describe('recording (WAV)', () => {
  it('writes a valid 8 kHz mono 16-bit PCM header and exactly the call’s length', async () => {
    const carrier = new SimulatedCarrier({ timeScale: 1 });
    const rec = carrier.recording({ callId: 'wav-1', durationSeconds: 7 });
    expect(rec.contentType).toBe('audio/wav');
    expect(rec.contentLength).toBe(44 + 16_000 * 7);
    const { bytes } = await drain(rec.stream);
    expect(bytes.length).toBe(rec.contentLength);
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(bytes.readUInt32LE(16)).toBe(16);
    expect(bytes.readUInt16LE(20)).toBe(1); // PCM
    expect(bytes.readUInt16LE(22)).toBe(1); // mono
    expect(bytes.readUInt32LE(24)).toBe(8000);
    expect(bytes.readUInt32LE(28)).toBe(16_000);
    expect(bytes.readUInt16LE(32)).toBe(2);
    expect(bytes.readUInt16LE(34)).toBe(16);
    expect(bytes.toString('ascii', 36, 40)).toBe('data');
    expect(bytes.readUInt32LE(40)).toBe(16_000 * 7);
    // Not silence: somebody is talking in it.
    let peak = 0;
    for (let i = 44; i < bytes.length; i += 2) peak = Math.max(peak, Math.abs(bytes.readInt16LE(i)));
    expect(peak).toBeGreaterThan(1000);
    expect(peak).toBeLessThan(32_767);
  });

  it('0 s is a header only; the same call gives the same bytes, another call other bytes', async () => {
    const empty = synthesizeRecording('wav-0', 0);
    expect(empty.contentLength).toBe(44);
    expect((await drain(empty.stream)).bytes.readUInt32LE(40)).toBe(0);
    const hash = async (id: string) =>
      createHash('sha256')
        .update((await drain(synthesizeRecording(id, 3).stream)).bytes)
        .digest('hex');
    expect(await hash('wav-a')).toBe(await hash('wav-a'));
    expect(await hash('wav-a')).not.toBe(await hash('wav-b'));
  });

  it('streams a 600 s file in chunks of at most 64 KiB, and caps longer ones at maxCallSeconds', async () => {
    const carrier = new SimulatedCarrier({ timeScale: 1 });
    const rec = carrier.recording({ callId: 'wav-long', durationSeconds: 600 });
    let total = 0;
    let largest = 0;
    for await (const chunk of rec.stream as Readable) {
      total += (chunk as Buffer).length;
      largest = Math.max(largest, (chunk as Buffer).length);
    }
    expect(total).toBe(rec.contentLength);
    expect(rec.contentLength).toBe(44 + 16_000 * 600);
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    expect(carrier.recording({ callId: 'wav-long', durationSeconds: 5000 }).contentLength).toBe(
      44 + 16_000 * carrier.maxCallSeconds,
    );
  });
});
