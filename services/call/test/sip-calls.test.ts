import { randomUUID } from 'node:crypto';
import {
  AGENT,
  type AgentSnapshot,
  AppError,
  type Bus,
  CALL,
  type Call,
  type CallContext,
  Call as CallSchema,
  callRpc,
  createSql,
  EVENTS,
  eventEnvelope,
  eventFilter,
  eventSubject,
  InProcessBus,
  loadConfig,
  NatsBus,
  type ServiceHandle,
  type SipCallEnd,
  type SipCallProgress,
  type SipDialRequest,
  type SipTrunk,
  type Sql,
  type Subscription,
  serveRpc,
  TELEPHONY,
} from '@voice/shared';
import { createTestDatabase, infraModes, natsUrlOrThrow, type TestDatabase } from '@voice/shared/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { costs } from '../src/carrier/index';
import { SIP_BEFORE_ANSWER_SECONDS, SIP_GOODBYE_SECONDS } from '../src/carrier/sip-dial';
import { createCallService } from '../src/index';

/*
 * The call service's side of calls over SIP trunks, with the real bus (NATS and in-process) and
 * PostgreSQL. The telephony service's dial path is being built elsewhere, so `FakeTelephony`
 * stands in for it at the protocol level only: it answers TELEPHONY.route, dial and hangup as
 * shared/src/contracts/telephony-calls.ts says and publishes SIP progress into its durable stream.
 * The real telephony service against this side (sipp and baresip on loopback) is tested by the
 * lead after the merge; routing against the real one is in platform/test/api/calls-sip.test.ts.
 */

const TRUNK_NUMBER = '+14155550100';
const UNROUTED_NUMBER = '+14155550199';
const SIMULATED_NUMBER = '+14155550177';
const CALLEE = '+14155551234';

const AGENT_COPY: AgentSnapshot = {
  id: randomUUID(),
  name: 'Riley',
  agent_type: 'real_estate_lead_qualifier',
  industry: null,
  goal: 'Qualify the lead',
  collects: [
    { name: 'budget', type: 'number', description: 'Budget for the purchase.', required: true },
    { name: 'preferred_area', type: 'string', description: 'Where they want to live.', required: true },
    { name: 'move_in_date', type: 'date', description: 'When they want to move.', required: false },
  ],
  language: 'en',
  voice: 'alloy',
  ai_model: 'gpt-4o',
  start_flow: 'Hi, this is Riley.',
  end_flow: 'Goodbye!',
  prompt: 'You are Riley.',
  prompt_hash: 'hash',
  prompt_version_id: null,
};

function trunk(numbers: string[]): SipTrunk {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    name: 'Loopback trunk',
    uri: 'sip:127.0.0.1:5060;transport=udp',
    username: null,
    has_password: false,
    numbers,
    is_default: false,
    max_concurrent_calls: null,
    calls_per_second: null,
    ring_timeout_seconds: 30,
    codecs: ['PCMU', 'PCMA'],
    health: { status: 'unknown', checked_at: null, latency_ms: null, sip_code: null, detail: null },
    created_at: now,
    updated_at: now,
  };
}

/** The telephony service as the contract describes it, without any SIP or RTP. */
class FakeTelephony {
  readonly trunk = trunk([TRUNK_NUMBER]);
  readonly dials: SipDialRequest[] = [];
  readonly hangups: string[] = [];
  private readonly dialed = new Set<string>();
  private subs: Subscription[] = [];

  constructor(
    private readonly bus: Bus,
    private readonly log: pino.Logger,
  ) {}

  start(): void {
    const options = { queue: 'telephony', log: this.log };
    this.subs = [
      serveRpc(
        this.bus,
        TELEPHONY.route,
        async ({ source_number }) => {
          if (source_number === TRUNK_NUMBER) {
            return { carrier: 'sip', matched: 'source_number', trunk: this.trunk } as const;
          }
          if (source_number === SIMULATED_NUMBER) {
            return { carrier: 'simulated', matched: 'simulated', trunk: null } as const;
          }
          throw new AppError('NO_SIP_TRUNK');
        },
        options,
      ),
      serveRpc(
        this.bus,
        TELEPHONY.dial,
        async (request) => {
          const already = this.dialed.has(request.call_id);
          this.dialed.add(request.call_id);
          this.dials.push(request);
          return { call_id: request.call_id, instance: 'fake-telephony', already };
        },
        options,
      ),
      serveRpc(
        this.bus,
        TELEPHONY.hangup,
        async ({ call_id }) => {
          this.hangups.push(call_id);
          return { call_id, ended: true };
        },
        options,
      ),
    ];
  }

  async stop(): Promise<void> {
    await Promise.all(this.subs.splice(0).map((s) => s.unsubscribe()));
  }

  /** Publishes one step of a call as the telephony service does: durable, keyed by its event id. */
  async progress(accountId: string, step: SipCallProgress, eventId = randomUUID()): Promise<void> {
    const envelope = eventEnvelope({
      subject: eventSubject(EVENTS.sipCallProgress, accountId, step.call_id),
      accountId,
      data: step,
      id: eventId,
    });
    await this.bus.publishDurable(eventSubject(EVENTS.sipCallProgress, accountId, step.call_id), envelope, {
      msgId: envelope.id,
    });
  }
}

const step = (
  callId: string,
  sequence: number,
  type: SipCallProgress['type'],
  over: Partial<SipCallProgress> = {},
): SipCallProgress => ({
  call_id: callId,
  sequence,
  type,
  at: new Date().toISOString(),
  sip_code: type === 'ringing' ? 180 : type === 'answered' ? 200 : null,
  sip_reason: type === 'ringing' ? 'Ringing' : type === 'answered' ? 'OK' : null,
  end: null,
  ...over,
});

describe.each(infraModes())('calls over a SIP trunk, through the telephony service (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let bus: Bus;
  let telephony: FakeTelephony;
  let service: ServiceHandle | undefined;
  let agentResponder: Subscription;
  const lines: { msg?: string; call_id?: string; sequence?: number }[] = [];
  const log = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as (typeof lines)[number]);
        if (process.env.DEBUG_SIP_TEST) process.stderr.write(line);
      },
    },
  );
  const accountId = randomUUID();
  const ctx = (): CallContext => ({ requestId: randomUUID(), accountId });

  const startService = async () => {
    service = createCallService(
      {
        bus,
        sql,
        log,
        config: loadConfig({ BUS_PREFIX: '', CALL_LEASE_SECONDS: '3', SIP_MAX_CALL_SECONDS: '3600' }),
      },
      { sipDialRetryMs: [50, 100, 200] },
    );
    await service.start();
  };

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 4, log: pino({ level: 'silent' }), applicationName: 'call-sip-test' });
    bus =
      mode === 'nats'
        ? await NatsBus.connect({
            servers: natsUrlOrThrow(),
            name: 'call-sip-test',
            prefix: `t${Math.random().toString(36).slice(2, 10)}`,
            requestTimeoutMs: 5_000,
            log,
          })
        : new InProcessBus({ requestTimeoutMs: 5_000, log });
    // The agent service's part: the snapshot a call is placed with.
    agentResponder = serveRpc(bus, AGENT.snapshot, async () => AGENT_COPY, { queue: 'agent', log });
    telephony = new FakeTelephony(bus, log);
    telephony.start();
    await startService();
  });
  afterAll(async () => {
    await service?.stop();
    await telephony?.stop();
    await agentResponder?.unsubscribe();
    await bus?.close();
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  const place = (source_number: string) =>
    callRpc(bus, CALL.create, { agent_id: AGENT_COPY.id, source_number, phone_number: CALLEE }, ctx());
  const get = (id: string) => callRpc(bus, CALL.get, { call_id: id }, ctx());
  const until = async (id: string, check: (call: Call) => boolean) => {
    let call = await get(id);
    await vi.waitFor(
      async () => {
        call = await get(id);
        expect(check(call)).toBe(true);
      },
      { timeout: 15_000, interval: 20 },
    );
    return call;
  };
  const handled = (id: string) => lines.filter((l) => l.msg === 'SIP progress handled' && l.call_id === id);
  const transitions = async (id: string) =>
    (
      await sql<
        { status: string }[]
      >`SELECT status FROM call.call_transitions WHERE call_id = ${id} ORDER BY sequence`
    ).map((r) => r.status);

  it('routes, dials with the agent’s speech, and applies each step to a final record, CALL_ENDED once', async () => {
    const ended: Call[] = [];
    const ends = bus.subscribe(eventFilter(EVENTS.callEnded, accountId), (msg) => {
      ended.push((msg.data as { data: { call: Call } }).data.call);
    });
    try {
      const placed = await place(TRUNK_NUMBER);
      expect(placed.telephony).toEqual({
        carrier: 'sip',
        trunk_id: telephony.trunk.id,
        sip_code: null,
        sip_reason: null,
      });
      await vi.waitFor(() => expect(telephony.dials.map((d) => d.call_id)).toContain(placed.id), {
        timeout: 10_000,
      });
      expect(telephony.dials.find((d) => d.call_id === placed.id)).toEqual({
        call_id: placed.id,
        trunk_id: telephony.trunk.id,
        source_number: TRUNK_NUMBER,
        destination_number: CALLEE,
        speech: { language: 'en', voice: 'alloy', start_flow: 'Hi, this is Riley.', end_flow: 'Goodbye!' },
        // What the conversation engine holds the call with: the agent as placed, its prompt and model.
        conversation: {
          agent_name: 'Riley',
          agent_type: 'real_estate_lead_qualifier',
          goal: 'Qualify the lead',
          prompt: 'You are Riley.',
          ai_model: 'gpt-4o',
          collects: AGENT_COPY.collects,
          metadata: null,
          // SIP_MAX_CALL_SECONDS 3600, less the longest wait for an answer and the goodbye.
          max_duration_seconds: 3600 - SIP_BEFORE_ANSWER_SECONDS - SIP_GOODBYE_SECONDS,
        },
      });

      await telephony.progress(accountId, step(placed.id, 1, 'ringing'));
      await until(placed.id, (c) => c.status === 'ringing');
      const answeredAt = new Date();
      await telephony.progress(accountId, step(placed.id, 2, 'answered', { at: answeredAt.toISOString() }));
      const live = await until(placed.id, (c) => c.status === 'in_progress');
      expect(live.answered_at).toBe(answeredAt.toISOString());
      expect(live.telephony).toMatchObject({ sip_code: 200, sip_reason: 'OK' });

      const endedAt = new Date(answeredAt.getTime() + 7_200);
      const end: SipCallEnd = {
        status: 'completed',
        call_end_reason: 'customer_hung_up',
        ended_by: 'user',
        answered_at: answeredAt.toISOString(),
        ended_at: endedAt.toISOString(),
        duration_seconds: 7.2,
        spoken: [
          { text: 'Hi, this is Riley.', at: answeredAt.toISOString(), interrupted: false },
          { text: 'Goodbye!', at: new Date(answeredAt.getTime() + 5_000).toISOString(), interrupted: false },
        ],
        heard: [],
        conversation: null,
        // Keys pressed during the first line and after the second: they interleave by time.
        dtmf: [
          { digit: '4', at: new Date(answeredAt.getTime() + 2_000).toISOString() },
          { digit: '#', at: new Date(answeredAt.getTime() + 6_000).toISOString() },
        ],
        recorded: true,
        detail: null,
      };
      await telephony.progress(accountId, step(placed.id, 3, 'ended', { at: end.ended_at, end }));
      const final = await until(placed.id, (c) => c.status === 'completed');
      const price = costs(8);
      expect(final).toMatchObject({
        status: 'completed',
        call_end_reason: 'customer_hung_up',
        ended_by: 'user',
        answered_at: answeredAt.toISOString(),
        ended_at: endedAt.toISOString(),
        duration_seconds: 8,
        sentiment: 'neutral',
        opted_out: false,
        details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
        ai_cost: price.ai_cost,
        telephony_cost: price.telephony_cost,
        total_cost: price.total_cost,
        // The answer's SIP response stays: the end reported none of its own.
        telephony: { carrier: 'sip', trunk_id: telephony.trunk.id, sip_code: 200, sip_reason: 'OK' },
      });
      expect(final.total_cost).toBeGreaterThan(0);
      const clock = (ms: number) => new Date(answeredAt.getTime() + ms).toISOString().slice(11, 19);
      expect(final.transcript).toEqual([
        { role: 'agent', content: 'Hi, this is Riley.', timestamp: clock(0) },
        { role: 'user', content: '[DTMF] 4', timestamp: clock(2_000) },
        { role: 'agent', content: 'Goodbye!', timestamp: clock(5_000) },
        { role: 'user', content: '[DTMF] #', timestamp: clock(6_000) },
      ]);
      expect(final.call_summary).toMatch(/SIP trunk/);
      expect(await callRpc(bus, CALL.recordingInfo, { call_id: placed.id }, ctx())).toMatchObject({
        has_recording: true,
      });
      await vi.waitFor(() => expect(ended.map((c) => c.id)).toContain(placed.id), { timeout: 10_000 });

      // The same steps again (a telephony instance re-publishing after a crash), a stale one, and
      // one re-sent with the same event id: each is handled, none changes anything.
      const before = handled(placed.id).length;
      await telephony.progress(accountId, step(placed.id, 1, 'ringing'));
      await telephony.progress(accountId, step(placed.id, 2, 'answered'));
      await telephony.progress(
        accountId,
        step(placed.id, 3, 'ended', { end: { ...end, status: 'failed', call_end_reason: 'carrier_error' } }),
      );
      await vi.waitFor(() => expect(handled(placed.id).length).toBeGreaterThanOrEqual(before + 3), {
        timeout: 10_000,
      });
      expect(await transitions(placed.id)).toEqual(['initializing', 'ringing', 'in_progress', 'completed']);
      expect(await get(placed.id)).toEqual(final);
      // Anything the duplicates had queued would have left the outbox by now.
      await vi.waitFor(
        async () => {
          const [unpublished] = await sql<
            { n: number }[]
          >`SELECT count(*)::int AS n FROM call.outbox WHERE published_at IS NULL`;
          expect(unpublished?.n).toBe(0);
        },
        { timeout: 10_000 },
      );
      expect(ended.filter((c) => c.id === placed.id)).toHaveLength(1);
      // The call ended here: this instance tracks it no more.
      expect(telephony.hangups).not.toContain(placed.id);
    } finally {
      await ends.unsubscribe();
    }
  });

  it('records what the conversation engine reports: both sides in order, details, opt-out, sentiment, summary', async () => {
    const metadata = { name: 'Jordan', crm_id: 'lead-4821' };
    const placed = await callRpc(
      bus,
      CALL.create,
      { agent_id: AGENT_COPY.id, source_number: TRUNK_NUMBER, phone_number: CALLEE, metadata },
      ctx(),
    );
    await vi.waitFor(() => expect(telephony.dials.map((d) => d.call_id)).toContain(placed.id), {
      timeout: 10_000,
    });
    const dial = telephony.dials.find((d) => d.call_id === placed.id);
    expect(dial?.conversation).toMatchObject({ prompt: 'You are Riley.', ai_model: 'gpt-4o', metadata });
    // The prompt is kept once, however many calls are placed with it.
    const kept = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM call.prompts WHERE hash = 'hash'`;
    expect(kept[0]?.n).toBe(1);

    const answeredAt = new Date();
    const at = (ms: number) => new Date(answeredAt.getTime() + ms).toISOString();
    await telephony.progress(accountId, step(placed.id, 1, 'answered', { at: at(0) }));
    await until(placed.id, (c) => c.status === 'in_progress');
    const end: SipCallEnd = {
      status: 'completed',
      call_end_reason: 'conversation_completed',
      ended_by: 'agent',
      answered_at: at(0),
      ended_at: at(21_000),
      duration_seconds: 21,
      spoken: [
        { text: 'Hi, this is Riley.', at: at(0), interrupted: false },
        { text: 'What budget do you', at: at(3_000), interrupted: true },
        { text: 'Goodbye!', at: at(18_000), interrupted: false },
      ],
      heard: [
        { text: 'hi it is jordan', at: at(1_500), confidence: 0.87 },
        { text: 'about six hundred thousand downtown', at: at(4_000), confidence: 0.55 },
        { text: 'please do not call me again', at: at(16_000), confidence: 0.93 },
      ],
      dtmf: [{ digit: '1', at: at(10_000) }],
      recorded: true,
      detail: null,
      conversation: {
        amd: 'human',
        collected: { budget: 600_000, preferred_area: 'downtown', mood: 'annoyed' },
        opted_out: true,
        sentiment: 'negative',
        summary: 'Jordan gave a budget and an area, then asked not to be called again.',
        recognition_unavailable: null,
      },
    };
    await telephony.progress(accountId, step(placed.id, 2, 'ended', { at: end.ended_at, end }));
    const final = await until(placed.id, (c) => c.status === 'completed');
    expect(CallSchema.parse(final)).toEqual(final);
    const clock = (ms: number) => at(ms).slice(11, 19);
    expect(final.transcript).toEqual([
      { role: 'agent', content: 'Hi, this is Riley.', timestamp: clock(0) },
      { role: 'user', content: 'hi it is jordan', confidence: 0.87, timestamp: clock(1_500) },
      { role: 'agent', content: 'What budget do you', timestamp: clock(3_000) },
      {
        role: 'user',
        content: 'about six hundred thousand downtown',
        confidence: 0.55,
        timestamp: clock(4_000),
      },
      { role: 'user', content: '[DTMF] 1', timestamp: clock(10_000) },
      { role: 'user', content: 'please do not call me again', confidence: 0.93, timestamp: clock(16_000) },
      { role: 'agent', content: 'Goodbye!', timestamp: clock(18_000) },
    ]);
    expect(final).toMatchObject({
      call_end_reason: 'conversation_completed',
      ended_by: 'agent',
      duration_seconds: 21,
      sentiment: 'negative',
      opted_out: true,
      call_summary: 'Jordan gave a budget and an area, then asked not to be called again.',
      // Both required details: complete; two of the three declared: 0.67. `mood` is no detail of the agent.
      details_collection: {
        status: 'complete',
        score: 0.67,
        collected_details: ['budget', 'preferred_area'],
        collected_values: { budget: 600_000, preferred_area: 'downtown' },
      },
    });
    const [stored] = await sql<
      { opted_out: boolean }[]
    >`SELECT opted_out FROM call.calls WHERE id = ${placed.id}`;
    expect(stored?.opted_out).toBe(true);
    // The callee is on the account's do-not-call list from the statement that ended the call; the
    // entry is removed so that the later tests may call the same number.
    const [listed] = await sql<{ source: string; call_id: string }[]>`
      SELECT source, call_id FROM call.do_not_call WHERE account_id = ${accountId} AND number = ${CALLEE}`;
    expect(listed).toEqual({ source: 'opt_out', call_id: placed.id });
    await sql`DELETE FROM call.do_not_call WHERE account_id = ${accountId}`;
  });

  it('places a call no trunk carries through the default network, and names it', async () => {
    const placed = await place(SIMULATED_NUMBER);
    expect(placed.telephony).toMatchObject({ carrier: 'simulated', trunk_id: null });
    expect(telephony.dials.map((d) => d.call_id)).not.toContain(placed.id);
  });

  it('refuses a call with NO_SIP_TRUNK (422) when nothing may carry it, and stores nothing', async () => {
    const refused = await place(UNROUTED_NUMBER).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'NO_SIP_TRUNK', status: 422 });
    const [stored] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM call.calls WHERE source_number = ${UNROUTED_NUMBER}`;
    expect(stored?.n).toBe(0);
  });

  it('without a telephony service, places nothing (503); a call it cannot dial fails as carrier_error', async () => {
    // The router is gone: nothing is placed, and the caller is told so.
    await telephony.stop();
    try {
      const refused = await place(TRUNK_NUMBER).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    } finally {
      telephony.start();
    }

    // Routed, but the dial finds nobody, through every retry: failed, by the system, not stuck.
    const routeOnly = serveRpc(
      bus,
      TELEPHONY.route,
      async () => ({ carrier: 'sip', matched: 'default_trunk', trunk: telephony.trunk }) as const,
      { queue: 'telephony-route-only', log },
    );
    await telephony.stop();
    try {
      const placed = await place(TRUNK_NUMBER);
      const final = await until(placed.id, (c) => c.status === 'failed');
      expect(final).toMatchObject({
        status: 'failed',
        call_end_reason: 'carrier_error',
        ended_by: 'system',
        answered_at: null,
        duration_seconds: 0,
        total_cost: 0,
        transcript: [],
        telephony: { carrier: 'sip', trunk_id: telephony.trunk.id, sip_code: null, sip_reason: null },
      });
      expect(final.call_summary).toMatch(/did not take the call/);
    } finally {
      await routeOnly.unsubscribe();
      telephony.start();
    }
  });

  it('after a restart, goes on with the progress published meanwhile; nothing is dialed twice', async () => {
    const placed = await place(TRUNK_NUMBER);
    await vi.waitFor(() => expect(telephony.dials.map((d) => d.call_id)).toContain(placed.id), {
      timeout: 10_000,
    });
    await telephony.progress(accountId, step(placed.id, 1, 'ringing'));
    await telephony.progress(accountId, step(placed.id, 2, 'answered'));
    await until(placed.id, (c) => c.status === 'in_progress');

    // Stopped while the call is live; the end is published while no call service runs.
    await service!.stop();
    const now = new Date();
    // As an instance older than the `dtmf`, `heard` and `conversation` fields publishes it: still read.
    const end: Omit<SipCallEnd, 'dtmf' | 'heard' | 'conversation'> = {
      status: 'completed',
      call_end_reason: 'agent_hung_up',
      ended_by: 'agent',
      answered_at: now.toISOString(),
      ended_at: now.toISOString(),
      duration_seconds: 0.4,
      spoken: [],
      recorded: false,
      detail: null,
    };
    await telephony.progress(accountId, step(placed.id, 3, 'ended', { end: end as SipCallEnd }));
    await startService();

    const final = await until(placed.id, (c) => c.status === 'completed');
    expect(final).toMatchObject({
      call_end_reason: 'agent_hung_up',
      ended_by: 'agent',
      duration_seconds: 1,
      // No conversation reported: the record reads as before the engine.
      sentiment: 'neutral',
      opted_out: false,
      details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
    });
    expect(final.call_summary).toMatch(/^Call over a SIP trunk was answered and the agent spoke its flows/);
    expect(final.transcript).toEqual([]);
    expect(await callRpc(bus, CALL.recordingInfo, { call_id: placed.id }, ctx())).toMatchObject({
      has_recording: false,
    });
    // Answered before the restart: resuming it sent no second dial.
    expect(telephony.dials.filter((d) => d.call_id === placed.id)).toHaveLength(1);
  });
});
