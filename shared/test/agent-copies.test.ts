import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT,
  AgentCopies,
  type AgentSnapshot,
  AppError,
  type Bus,
  callRpc,
  createLogger,
  InProcessBus,
  NOTICES,
  noticeSubject,
  serveRpc,
} from '../src/index';

const log = createLogger({ level: 'silent', name: 'test' });
const ACCOUNT = randomUUID();
const ctx = { requestId: 'test', accountId: ACCOUNT };

function snapshot(id: string, name: string): AgentSnapshot {
  return {
    id,
    name,
    agent_type: 'sales',
    industry: null,
    goal: 'sell',
    collects: [],
    language: 'en',
    voice: 'v',
    ai_model: 'm',
    start_flow: 'hi',
    end_flow: 'bye',
    prompt: 'p',
    prompt_hash: 'h',
    prompt_version_id: null,
  };
}

/**
 * A stand-in agent service on a real (in-process) bus: answers agent.snapshot from `agents`,
 * counts the requests, and can hold a reply until released (a change racing a fetch).
 */
function agentService(bus: Bus) {
  const agents = new Map<string, string>();
  let held: Promise<void> | undefined;
  let arrived: (() => void) | undefined;
  const service = {
    agents,
    requests: 0,
    /** Resolves once the next request has read its agent (its reply is then as it was). */
    nextRequest(): Promise<void> {
      return new Promise((resolve) => {
        arrived = resolve;
      });
    },
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    async change(agentId: string, name: string | undefined) {
      if (name === undefined) agents.delete(agentId);
      else agents.set(agentId, name);
      await bus.publish(noticeSubject(NOTICES.agentChanged, ACCOUNT, agentId), { agent_id: agentId });
    },
  };
  serveRpc(
    bus,
    AGENT.snapshot,
    async ({ agent_id }) => {
      service.requests++;
      const name = agents.get(agent_id);
      arrived?.();
      arrived = undefined;
      await held;
      if (name === undefined) throw new AppError('AGENT_NOT_FOUND');
      return snapshot(agent_id, name);
    },
    { queue: 'agent', log },
  );
  return service;
}

/** The call service's use: the agent a call is placed with. */
function snapshotsOver(bus: Bus, options: ConstructorParameters<typeof AgentCopies>[3] = {}) {
  return new AgentCopies(
    bus,
    log,
    (ctx, agentId) => callRpc(bus, AGENT.snapshot, { agent_id: agentId }, ctx),
    options,
  );
}

describe('AgentCopies: copies of agents kept between requests', () => {
  const buses: Bus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  function setup(options: ConstructorParameters<typeof AgentCopies>[3] = {}) {
    const bus = new InProcessBus({ requestTimeoutMs: 2_000, log });
    buses.push(bus);
    const service = agentService(bus);
    const snapshots = snapshotsOver(bus, options);
    snapshots.listen();
    return { bus, service, snapshots };
  }

  it('asks the agent service once for many calls of one agent, once per agent', async () => {
    const { service, snapshots } = setup();
    const [a, b] = [randomUUID(), randomUUID()];
    service.agents.set(a, 'A');
    service.agents.set(b, 'B');
    const names = await Promise.all(
      [a, a, a, b, a, b].map(async (id) => (await snapshots.get(ctx, id)).name),
    );
    for (let i = 0; i < 10; i++) await snapshots.get(ctx, a);
    expect(names).toEqual(['A', 'A', 'A', 'B', 'A', 'B']);
    expect(service.requests).toBe(2);
  });

  it('uses the changed agent for the next call once the change is announced; a deleted one is not found', async () => {
    const { service, snapshots } = setup();
    const id = randomUUID();
    service.agents.set(id, 'before');
    expect((await snapshots.get(ctx, id)).name).toBe('before');
    await service.change(id, 'after');
    expect((await snapshots.get(ctx, id)).name).toBe('after');
    await service.change(id, undefined);
    await expect(snapshots.get(ctx, id)).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    expect(service.requests).toBe(3);
  });

  it('keeps no copy fetched while a change was announced, and starts a new fetch for later calls', async () => {
    const { service, snapshots } = setup();
    const id = randomUUID();
    service.agents.set(id, 'old');
    const release = service.hold();
    const read = service.nextRequest();
    const racing = snapshots.get(ctx, id);
    // The reply in flight was read before the change; the change is announced before it arrives.
    await read;
    service.agents.set(id, 'new');
    await service.change(id, 'new');
    const after = snapshots.get(ctx, id);
    release();
    // The racing call was placed before the change answered: the agent as it was is right for it.
    expect((await racing).name).toBe('old');
    // A call placed after the change did not join the fetch under way.
    expect((await after).name).toBe('new');
    expect(service.requests).toBe(2);
    // Neither the racing fetch nor the joined one left a copy that predates the notice.
    await service.change(id, 'newest');
    expect((await snapshots.get(ctx, id)).name).toBe('newest');
  });

  it('does not cache a reply that arrived after a notice', async () => {
    const { service, snapshots } = setup();
    const id = randomUUID();
    service.agents.set(id, 'one');
    const release = service.hold();
    const read = service.nextRequest();
    const racing = snapshots.get(ctx, id);
    await read;
    // A notice about this agent arrives while the fetch is out (its reply may predate it).
    await service.change(id, 'one');
    release();
    await racing;
    const requestsBefore = service.requests;
    await snapshots.get(ctx, id);
    expect(service.requests).toBe(requestsBefore + 1);
  });

  it('asks again once a copy is older than its time to live', async () => {
    const { service, snapshots } = setup({ ttlMs: 50 });
    const id = randomUUID();
    service.agents.set(id, 'x');
    await snapshots.get(ctx, id);
    await snapshots.get(ctx, id);
    expect(service.requests).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await snapshots.get(ctx, id);
    expect(service.requests).toBe(2);
  });

  it('drops its copies when the bus lost its connection (notices may have been missed)', async () => {
    const { bus, service } = setup();
    let epoch = 0;
    const flaky = new Proxy(bus, {
      get(target, property, receiver) {
        if (property === 'connectionEpoch') return () => epoch;
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const snapshots = snapshotsOver(flaky);
    const id = randomUUID();
    service.agents.set(id, 'x');
    await snapshots.get(ctx, id);
    await snapshots.get(ctx, id);
    expect(service.requests).toBe(1);
    epoch++;
    await snapshots.get(ctx, id);
    expect(service.requests).toBe(2);
  });

  it('keeps at most maxEntries agents', async () => {
    const { service, snapshots } = setup({ maxEntries: 2 });
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) service.agents.set(id, id);
    for (const id of ids) await snapshots.get(ctx, id);
    expect(service.requests).toBe(3);
    await snapshots.get(ctx, ids[0]!); // the oldest was dropped
    expect(service.requests).toBe(4);
    await snapshots.get(ctx, ids[2]!);
    expect(service.requests).toBe(4);
  });
});
