import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type Bus,
  createLogger,
  createSql,
  type DurableMessage,
  enqueueEvent,
  InProcessBus,
  migrate,
  NatsBus,
  type OutboxRelay,
  type OutboxRelayOptions,
  type PublishDurableOptions,
  type Sql,
  type StreamDefinition,
  startOutboxRelay,
  transaction,
} from '../src/index';
import {
  createTestDatabase,
  type InfraMode,
  infraModes,
  natsUrlOrThrow,
  type TestDatabase,
} from '../testing/index';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'db-outbox-test' });
const STREAM: StreamDefinition = {
  name: 'OUTBOX_TEST',
  subjects: ['events.outboxtest.>'],
  maxAgeMs: 600_000,
};
const SUBJECT = 'events.outboxtest.happened';
const WAIT = { timeout: 15_000, interval: 20 };

/** Counts what reaches the bus per msgId, so double publishes show even where the bus dedupes. */
class CountingBus {
  readonly publishes = new Map<string, number>();
  constructor(readonly inner: Bus) {}
  asBus(): Bus {
    return new Proxy(this.inner, {
      get: (target, key, receiver) =>
        key === 'publishDurable'
          ? (subject: string, data: unknown, options: PublishDurableOptions) => {
              this.publishes.set(options.msgId, (this.publishes.get(options.msgId) ?? 0) + 1);
              return target.publishDurable(subject, data, options);
            }
          : Reflect.get(target, key, receiver),
    });
  }
}

/** NATS in `nats` mode with its own prefix (streams are deleted afterwards); in-process otherwise. */
async function openBus(mode: InfraMode, prefix: string): Promise<Bus> {
  if (mode === 'embedded') return new InProcessBus({ requestTimeoutMs: 2000, log });
  return NatsBus.connect({
    servers: natsUrlOrThrow(),
    name: 'db-outbox-test',
    prefix,
    requestTimeoutMs: 2000,
    log,
  });
}

async function deleteNatsStream(prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrlOrThrow() });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(`${prefix}_${STREAM.name}`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

describe.each(infraModes())('outbox relay (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let emptyMigrations: string;
  let schema: string;
  let prefix: string;
  let bus: Bus;
  const relays: OutboxRelay[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 8, log, applicationName: 'db-outbox-test' });
    emptyMigrations = await mkdtemp(path.join(tmpdir(), 'voice-outbox-'));
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
    await rm(emptyMigrations, { recursive: true, force: true });
  });
  beforeEach(async () => {
    // Each test gets its own outbox table (a schema with just the bus tables) and its own bus.
    schema = `o_${randomBytes(4).toString('hex')}`;
    prefix = `t${randomBytes(4).toString('hex')}`;
    await migrate(sql, { schema, directory: emptyMigrations }, log);
    bus = await openBus(mode, prefix);
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    await bus.close();
    if (mode === 'nats') await deleteNatsStream(prefix);
  });

  async function relay(overrides: Partial<OutboxRelayOptions> = {}): Promise<OutboxRelay> {
    const started = await startOutboxRelay({
      sql,
      schema,
      bus,
      log,
      streams: [STREAM],
      pollIntervalMs: 100,
      ...overrides,
    });
    relays.push(started);
    return started;
  }

  async function consume(durable = 'test'): Promise<DurableMessage[]> {
    const received: DurableMessage[] = [];
    await bus.consume({
      stream: STREAM,
      durable,
      subjects: [SUBJECT],
      handler: async (msg) => {
        received.push(msg);
      },
    });
    return received;
  }

  function emit(n: number) {
    return transaction(sql, (tx) =>
      enqueueEvent(tx, schema, { subject: SUBJECT, data: { n }, accountId: 'acc_test' }),
    );
  }

  async function unpublished(): Promise<number> {
    const [row] = await sql<{ count: number }[]>`
      select count(*)::int as count from ${sql(schema)}.outbox where published_at is null`;
    return row!.count;
  }

  it('delivers an event committed with its state change, woken at commit rather than by polling', async () => {
    const received = await consume();
    await relay({ pollIntervalMs: 60_000 });
    const envelope = await transaction(sql, (tx) =>
      enqueueEvent(tx, schema, {
        subject: SUBJECT,
        data: { n: 1 },
        accountId: 'acc_1',
        headers: { 'x-request-id': 'req-1' },
      }),
    );
    await vi.waitFor(() => expect(received).toHaveLength(1), WAIT);
    const [message] = received;
    expect(message!.id).toBe(envelope.id);
    expect(message!.subject).toBe(SUBJECT);
    expect(message!.headers['x-request-id']).toBe('req-1');
    expect(message!.data).toEqual({
      id: envelope.id,
      type: SUBJECT,
      account_id: 'acc_1',
      occurred_at: envelope.occurred_at,
      data: { n: 1 },
    });
    // Published rows are deleted, not kept marked.
    await vi.waitFor(async () => {
      const [row] = await sql<{ count: number }[]>`select count(*)::int as count from ${sql(schema)}.outbox`;
      expect(row!.count).toBe(0);
    }, WAIT);
  });

  it('relays an event written outside `transaction` at the next poll', async () => {
    const received = await consume();
    await relay({ pollIntervalMs: 200 });
    const plain = await sql.begin((tx) =>
      enqueueEvent(tx, schema, { subject: SUBJECT, data: { n: 7 }, accountId: 'acc_1' }),
    );
    await vi.waitFor(() => expect(received.map((m) => m.id)).toContain(plain.id), WAIT);
  });

  it('never delivers the event of a rolled-back transaction', async () => {
    const received = await consume();
    await relay();
    const doomed = randomUUID();
    await expect(
      sql.begin(async (tx) => {
        await enqueueEvent(tx, schema, { subject: SUBJECT, data: { n: 0 }, accountId: 'acc_1', id: doomed });
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    const marker = await emit(1);
    await vi.waitFor(() => expect(received.map((m) => m.id)).toContain(marker.id), WAIT);
    expect(received.map((m) => m.id)).not.toContain(doomed);
    // Published rows are deleted, so only the marker can still be there; the doomed row never was.
    const rows = await sql`select id from ${sql(schema)}.outbox`;
    expect(rows.map((r) => r.id)).not.toContain(doomed);
  });

  it('recovers after a relay stopped: pending rows and rows leased by a crashed relay go out', async () => {
    const received = await consume();
    await (await relay()).stop();
    const pending = await emit(1);
    const leased = await emit(2);
    // What a relay that crashed mid-publish leaves behind: a claimed row with a live lease.
    await sql`update ${sql(schema)}.outbox set lease_until = now() + interval '1 second', attempts = 1
      where id = ${leased.id}`;
    await relay();
    await vi.waitFor(() => expect(received.map((m) => m.id)).toContain(pending.id), WAIT);
    await vi.waitFor(() => expect(received.map((m) => m.id)).toContain(leased.id), WAIT);
    await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
  });

  it('retries a failed publish after a backoff', async () => {
    // The bus refuses publishes at first, as JetStream does while its stream is unavailable.
    let refuse = true;
    const flaky = new Proxy(bus, {
      get: (target, key, receiver) =>
        key === 'publishDurable'
          ? (subject: string, data: unknown, options: PublishDurableOptions) =>
              refuse
                ? Promise.reject(new Error('stream unavailable'))
                : target.publishDurable(subject, data, options)
          : Reflect.get(target, key, receiver),
    });
    await relay({ bus: flaky });
    const event = await emit(1);
    // A failed attempt shortens the claim's lease to the retry backoff (1 s after the first).
    await vi.waitFor(async () => {
      const [row] =
        await sql`select attempts, published_at, lease_until < now() + interval '5 seconds' as backing_off
        from ${sql(schema)}.outbox where id = ${event.id}`;
      expect(row).toMatchObject({ attempts: 1, published_at: null, backing_off: true });
    }, WAIT);
    const received = await consume();
    refuse = false;
    await vi.waitFor(() => expect(received.map((m) => m.id)).toEqual([event.id]), WAIT);
    // Delivered by a later attempt, then deleted.
    await vi.waitFor(async () => {
      const rows = await sql`select 1 from ${sql(schema)}.outbox where id = ${event.id}`;
      expect(rows).toHaveLength(0);
    }, WAIT);
  });

  it('relays an event of no stream (a live event) as a plain publish', async () => {
    const counting = new CountingBus(bus);
    await relay({ bus: counting.asBus() });
    const live: unknown[] = [];
    const subscription = bus.subscribe('events.livetest.>', (msg) => void live.push(msg.data));
    try {
      const event = await transaction(sql, (tx) =>
        enqueueEvent(tx, schema, { subject: 'events.livetest.moved', data: { n: 1 }, accountId: 'acc_test' }),
      );
      await vi.waitFor(() => expect(live).toEqual([expect.objectContaining({ id: event.id })]), WAIT);
      await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
      // Never offered to a stream.
      expect(counting.publishes.size).toBe(0);
    } finally {
      await subscription.unsubscribe();
    }
  });

  it('publishes each event exactly once with two relays on the same table', async () => {
    const [first, second] = [new CountingBus(bus), new CountingBus(bus)];
    const received = await consume();
    await relay({ bus: first.asBus(), batchSize: 7, pollIntervalMs: 20 });
    await relay({ bus: second.asBus(), batchSize: 7, pollIntervalMs: 20 });
    const ids = (await Promise.all(Array.from({ length: 20 }, (_, t) => emitMany(t * 10, 10)))).flat();
    await vi.waitFor(() => expect(new Set(received.map((m) => m.id)).size).toBe(ids.length), WAIT);
    await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
    const published = [...first.publishes, ...second.publishes];
    expect(published.map(([id]) => id).sort()).toEqual([...ids].sort());
    expect(published.every(([, count]) => count === 1)).toBe(true);
    // Both relays took part, so the claims really competed.
    expect(first.publishes.size).toBeGreaterThan(0);
    expect(second.publishes.size).toBeGreaterThan(0);
  });

  it('deletes what it published with its next claims while commits keep waking it, and leaves nothing when stopped', async () => {
    const counting = new CountingBus(bus);
    const received = await consume();
    // Woken by commits only: each batch goes out while later commits wake the relay again.
    const stoppable = await relay({ bus: counting.asBus(), batchSize: 5, pollIntervalMs: 60_000 });
    const ids: string[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const events = await Promise.all(Array.from({ length: 10 }, (_, i) => emit(wave * 10 + i)));
      ids.push(...events.map((event) => event.id));
    }
    await vi.waitFor(() => expect(new Set(received.map((m) => m.id)).size).toBe(ids.length), WAIT);
    await stoppable.stop();
    expect([...counting.publishes.keys()].sort()).toEqual([...ids].sort());
    expect([...counting.publishes.values()].every((count) => count === 1)).toBe(true);
    const [row] = await sql<{ count: number }[]>`select count(*)::int as count from ${sql(schema)}.outbox`;
    expect(row!.count).toBe(0);
  });

  it('vacuums its own outbox once it has deleted enough rows, so claims do not wade through dead ones', async () => {
    // Dead rows counted on the table's pages (pgstattuple), not from n_dead_tup: the deleting
    // backends report their deletes up to seconds later (later still on a loaded machine), and a
    // report that comes after the relay's VACUUM counts rows that VACUUM already removed.
    await sql`create extension if not exists pgstattuple`;
    async function outboxStats() {
      const table = `${schema}.outbox`;
      const [row] = await sql<{ vacuums: number; dead: number }[]>`
        select (select vacuum_count::int from pg_stat_user_tables
                 where schemaname = ${schema} and relname = 'outbox') as vacuums,
               (select dead_tuple_count::int from pgstattuple(${table}::regclass)) as dead`;
      return row!;
    }
    const received = await consume();
    await relay({ vacuumEveryRows: 50, batchSize: 20, pollIntervalMs: 20 });
    const ids = (await Promise.all(Array.from({ length: 6 }, (_, t) => emitMany(t * 20, 20)))).flat();
    await vi.waitFor(() => expect(new Set(received.map((m) => m.id)).size).toBe(ids.length), WAIT);
    await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
    // vacuum_count counts manual VACUUMs only (autovacuum has its own column): these are the relay's.
    // At most the rows deleted since its last VACUUM (under 50, plus a batch) are left dead. Waited
    // for: a VACUUM removes nothing that a transaction still open may see (on a slow run, writers of
    // later events), so the dead rows go with the next one, due once 50 more rows are deleted.
    await vi.waitFor(async () => {
      const stats = await outboxStats();
      expect(stats.vacuums).toBeGreaterThanOrEqual(1);
      expect(stats.dead).toBeLessThan(ids.length);
    }, WAIT);
  });

  it('vacuums without the table lock that writers would queue behind (no truncation)', async () => {
    // Writers hold ROW EXCLUSIVE on the outbox all the time under load. A VACUUM that truncates the
    // table's empty tail needs ACCESS EXCLUSIVE for that: PostgreSQL retries for up to 5 s
    // (VACUUM_TRUNCATE_LOCK_TIMEOUT), and once it has it, every insert into the outbox waits.
    const writer = await sql.reserve();
    try {
      await writer`begin`;
      await writer`lock table ${sql(schema)}.outbox in row exclusive mode`;
      const received = await consume();
      await relay({ vacuumEveryRows: 50, batchSize: 60, pollIntervalMs: 20 });
      const ids = await emitMany(0, 60);
      await vi.waitFor(() => expect(new Set(received.map((m) => m.id)).size).toBe(ids.length), WAIT);
      await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
      // Every row is gone, so the whole table is an empty tail; the writer still holds its lock.
      await vi.waitFor(
        async () => {
          const [row] = await sql<{ vacuums: number }[]>`
            select vacuum_count::int as vacuums from pg_stat_user_tables
             where schemaname = ${schema} and relname = 'outbox'`;
          expect(row!.vacuums).toBeGreaterThanOrEqual(1);
        },
        // Below the 5 s a truncating VACUUM spends trying for the lock, with room for a loaded machine.
        { timeout: 4_500, interval: 20 },
      );
    } finally {
      await writer`rollback`;
      writer.release();
    }
  });

  it('stops within its stop bound while a publish hangs; the abandoned row is relayed later', async () => {
    const received = await consume();
    // A bus that takes the event but never confirms it (a stalled server, a stuck consumer).
    const stalled = new Proxy(bus, {
      get: (target, key, receiver) =>
        key === 'publishDurable' ? () => new Promise<void>(() => {}) : Reflect.get(target, key, receiver),
    });
    const stuck = await startOutboxRelay({
      sql,
      schema,
      bus: stalled,
      log,
      streams: [STREAM],
      pollIntervalMs: 50,
    });
    const event = await emit(1);
    await vi.waitFor(async () => {
      const [row] = await sql`select attempts from ${sql(schema)}.outbox where id = ${event.id}`;
      expect(row!.attempts).toBe(1);
    }, WAIT);
    const started = performance.now();
    await stuck.stop();
    const elapsed = performance.now() - started;
    // The publish timeout is 30 s; stop waits its own 2 s bound and no longer (a loaded machine may
    // add seconds to it, not the publish's 30).
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeLessThan(10_000);
    const [leased] = await sql`select published_at, lease_until > now() + interval '30 seconds' as leased
      from ${sql(schema)}.outbox where id = ${event.id}`;
    expect(leased).toMatchObject({ published_at: null, leased: true });
    expect(received).toEqual([]);

    // Once the lease runs out (made to here), the next relay publishes it: at least once.
    await sql`update ${sql(schema)}.outbox set lease_until = now() where id = ${event.id}`;
    await relay();
    await vi.waitFor(() => expect(received.map((m) => m.id)).toEqual([event.id]), WAIT);
    await vi.waitFor(async () => expect(await unpublished()).toBe(0), WAIT);
  });

  async function emitMany(first: number, count: number): Promise<string[]> {
    return sql.begin(async (tx) => {
      const ids: string[] = [];
      for (let n = first; n < first + count; n++) {
        ids.push((await enqueueEvent(tx, schema, { subject: SUBJECT, data: { n }, accountId: 'acc_1' })).id);
      }
      return ids;
    });
  }
});
