import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type Call,
  createLogger,
  EVENTS,
  eventFilter,
  NatsBus,
  STREAMS,
  type Subscription,
} from '@voice/shared';
import { createTestDatabase, infraModes, type TestDatabase } from '@voice/shared/testing';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from './support/accounts';
import { api, type Envelope } from './support/http';
import { natsProcessEnv, type PlatformProcess, spawnPlatform, spawnService } from './support/process';

const FROM = '+14155550100';
const CALLS_PER_RESTART = 4;
/** A completed call: answered within ~2 s of wall time, over after ~4-8 s. */
const SIM_TIME_SCALE = 0.15;
const LIFECYCLE = ['initializing', 'ringing', 'in_progress', 'completed'];

/**
 * The call service as its own process on NATS + PostgreSQL, restarted while calls are live: once
 * stopped gracefully (it hands its calls back) and once killed (its leases lapse). Every call must
 * carry on from where it was to exactly one final state and one CALL_ENDED.
 */
describe.runIf(infraModes().includes('nats'))('call service restart mid-call (NATS + PostgreSQL)', () => {
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let database: TestDatabase;
  let sql: postgres.Sql;
  let bus: NatsBus;
  let env: Record<string, string>;
  let gateway: PlatformProcess;
  let agent: PlatformProcess;
  let callService: PlatformProcess;
  /** Routes each call to its carrier at placement. */
  let telephony: PlatformProcess;
  let key: string;
  let agentId: string;
  const subscriptions: Subscription[] = [];
  /** CALL_ENDED as the durable stream holds it (what the webhook and campaign services consume). */
  const stored = new Map<string, string[]>();
  /** Every CALL_ENDED publish seen live: a relay may repeat one after a crash, never with a new id. */
  const published = new Map<string, string[]>();
  const note = (into: Map<string, string[]>, data: unknown) => {
    const event = data as { id: string; data: { call: Call } };
    into.set(event.data.call.id, [...(into.get(event.data.call.id) ?? []), event.id]);
  };

  const startCallService = () => spawnService('call', env);

  beforeAll(async () => {
    database = await createTestDatabase('nats');
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    env = natsProcessEnv(
      { databaseUrl: database.url, prefix: 'restart', adminToken, simTimeScale: SIM_TIME_SCALE },
      { CALL_LEASE_SECONDS: '2', DATABASE_POOL_SIZE: '4' },
    );
    const prefix = env.BUS_PREFIX!;
    bus = await NatsBus.connect({
      servers: env.NATS_URL!,
      name: 'call-restart-test',
      prefix,
      requestTimeoutMs: 5000,
      log: createLogger({ level: 'silent', name: 'test' }),
    });
    subscriptions.push(
      bus.subscribe(eventFilter(EVENTS.callEnded), (msg) => note(published, msg.data)),
      await bus.consume({
        stream: STREAMS.callEvents,
        durable: 'call-restart-test',
        subjects: [eventFilter(EVENTS.callEnded)],
        handler: async (msg) => note(stored, msg.data),
      }),
    );
    [gateway, callService, agent, telephony] = await Promise.all([
      spawnPlatform('gateway', env),
      startCallService(),
      spawnService('agent', env),
      spawnService('telephony', env),
    ]);

    ({ key } = await createAccount({ url: gateway.url!, adminToken }, { name: 'Restart' }));
    const riley = await api<Envelope<{ id: string }>>(gateway.url!, 'POST', '/v1/agents', {
      key,
      body: { name: 'Riley', start_flow: 'Hi, this is Riley.', end_flow: 'Thanks, goodbye!' },
    });
    expect(riley.status).toBe(201);
    agentId = riley.body.data.id;
    // Four processes start at once: on a loaded machine that takes a while.
  }, 180_000);

  afterAll(async () => {
    await Promise.all([gateway, agent, callService, telephony].map((p) => p?.stop('SIGKILL')));
    await Promise.all(subscriptions.map((s) => s.unsubscribe()));
    await bus?.close();
    await sql?.end({ timeout: 5 });
    await database?.drop();
  });

  const getCall = async (id: string): Promise<Call> => {
    const res = await api<Envelope<Call>>(gateway.url!, 'GET', `/v1/calls/${id}`, { key });
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  };

  /** Polls the database (the API's rate limit is no place for a poll loop) until every call is `status`. */
  async function waitForAll(ids: string[], status: string, timeoutMs: number): Promise<Call[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await sql<
        { status: string }[]
      >`SELECT status FROM call.calls WHERE id = ANY(${ids}::uuid[])`;
      if (rows.length === ids.length && rows.every((r) => r.status === status)) break;
      if (Date.now() > deadline) throw new Error(`calls not ${status} yet: ${rows.map((r) => r.status)}`);
      await delay(50);
    }
    return Promise.all(ids.map(getCall));
  }

  /**
   * Every call's CALL_ENDED reached the test, live and through the stream: it leaves through the
   * outbox after the row changed, so it may come well after the call is final on a loaded machine.
   */
  async function endedEventsArrived(ids: string[], live: boolean): Promise<void> {
    await vi.waitFor(
      () => {
        for (const id of ids) {
          expect(stored.has(id), `CALL_ENDED of ${id} in the stream`).toBe(true);
          if (live) expect(published.has(id), `CALL_ENDED of ${id} published`).toBe(true);
        }
      },
      { timeout: 30_000, interval: 50 },
    );
  }

  it.each([
    ['SIGTERM', 'a graceful stop hands its calls back'],
    ['SIGKILL', 'a crash lets its leases lapse'],
  ] as const)(
    'resumes live calls after %s (%s)',
    async (signal, _why) => {
      const placed: string[] = [];
      for (let i = 0; i < CALLS_PER_RESTART; i++) {
        const res = await api<Envelope<Call>>(gateway.url!, 'POST', '/v1/call', {
          key,
          body: { agent_id: agentId, source_number: FROM, phone_number: `+141555520${i}0` },
        });
        expect(res.status, res.text).toBe(201);
        placed.push(res.body.data.id);
      }
      const answered = await waitForAll(placed, 'in_progress', 30_000);

      const old = callService;
      const exit = await old.stop(signal);
      expect(exit).toBe(signal === 'SIGTERM' ? 0 : null);
      const left = await sql<{ id: string; owner: string | null }[]>`
      SELECT id, owner FROM call.calls
      WHERE id = ANY(${placed}::uuid[]) AND status IN ('initializing', 'ringing', 'in_progress')`;
      expect(left.length, 'the calls ended before the restart: raise the talk time').toBeGreaterThan(0);
      // Graceful: the leases were given back; crash: they still name the dead instance until they lapse.
      for (const row of left) {
        if (signal === 'SIGTERM') expect(row.owner).toBeNull();
        else expect(row.owner).not.toBeNull();
      }

      callService = await startCallService();
      const finished = await waitForAll(placed, 'completed', 60_000);
      for (const row of left) {
        expect(callService.output()).toMatch(new RegExp(`"call_id":"${row.id}".*resuming a call`));
      }
      finished.forEach((call, i) => {
        // Carried on from where it was: the same dial and the same pick-up.
        expect(call.answered_at).toBe(answered[i]!.answered_at);
        expect(call.started_at).toBe(answered[i]!.started_at);
        expect(call).toMatchObject({ call_end_reason: 'conversation_completed', ended_by: 'agent' });
        expect(call.duration_seconds).toBeGreaterThan(0);
      });

      await endedEventsArrived(placed, true);
      // A late or repeated delivery would show up here.
      await delay(1000);
      const transitions = await sql<{ call_id: string; sequence: number; status: string }[]>`
      SELECT call_id, sequence, status FROM call.call_transitions
      WHERE call_id = ANY(${placed}::uuid[]) ORDER BY call_id, sequence`;
      for (const id of placed) {
        const mine = transitions.filter((r) => r.call_id === id);
        expect(mine.map((r) => r.status)).toEqual(LIFECYCLE);
        expect(mine.map((r) => r.sequence)).toEqual([1, 2, 3, 4]);
        expect(stored.get(id), `CALL_ENDED of ${id} in the stream`).toEqual([id]);
        expect(new Set(published.get(id)), `CALL_ENDED of ${id} published`).toEqual(new Set([id]));
      }
      // Written once (a second row would be a second event in the stream, checked above), and
      // every one relayed: published rows are deleted, so none of these is left in the outbox.
      const rows = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM call.outbox
      WHERE subject LIKE 'events.call.ended.%' AND payload->'data'->'call'->>'id' = ANY(${placed})`;
      expect(rows[0]!.n).toBe(0);
    },
    180_000,
  );

  it('dials the calls that were still waiting in a killed instance’s dial queue, each once', async () => {
    // A trunk of one call a second: most of a burst is still waiting when the instance dies.
    await callService.stop('SIGTERM');
    callService = await spawnService('call', { ...env, CALL_DIALS_PER_SECOND: '1' });
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api<Envelope<Call>>(gateway.url!, 'POST', '/v1/call', {
          key,
          body: { agent_id: agentId, source_number: FROM, phone_number: `+141555530${i}0` },
        }),
      ),
    );
    const placed = burst.map((res) => {
      expect(res.status, res.text).toBe(201);
      return res.body.data.id;
    });
    const killedAt = new Date();
    expect(await callService.stop('SIGKILL')).toBeNull();
    // Read once the instance is dead: read before, a call it dialed in between (it still dials one
    // a second) would count as waiting, and its dial time would precede the kill.
    const waiting = await sql<{ id: string }[]>`
      SELECT id FROM call.calls WHERE id = ANY(${placed}::uuid[]) AND dialed_at IS NULL`;
    expect(waiting.length, 'calls waiting to be dialed when the instance is killed').toBeGreaterThan(2);

    callService = await startCallService();
    const finished = await waitForAll(placed, 'completed', 60_000);
    const dialed = await sql<{ id: string; dialed_at: Date }[]>`
      SELECT id, dialed_at FROM call.calls WHERE id = ANY(${waiting.map((w) => w.id)}::uuid[])`;
    for (const row of dialed) expect(row.dialed_at.getTime()).toBeGreaterThanOrEqual(killedAt.getTime());
    expect(finished.every((call) => call.call_end_reason === 'conversation_completed')).toBe(true);
    await endedEventsArrived(placed, false);
    // A late or repeated delivery would show up here.
    await delay(1000);
    const transitions = await sql<{ call_id: string; status: string }[]>`
      SELECT call_id, status FROM call.call_transitions
      WHERE call_id = ANY(${placed}::uuid[]) ORDER BY call_id, sequence`;
    for (const id of placed) {
      expect(transitions.filter((r) => r.call_id === id).map((r) => r.status)).toEqual(LIFECYCLE);
      expect(stored.get(id), `CALL_ENDED of ${id} in the stream`).toEqual([id]);
    }
  }, 180_000);
});
