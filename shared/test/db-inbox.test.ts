import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type Bus,
  createLogger,
  createSql,
  enqueueEvent,
  InProcessBus,
  migrate,
  NatsBus,
  processOnce,
  type Sql,
  type StreamDefinition,
  startOutboxRelay,
  type TransactionSql,
} from '../src/index';
import { createTestDatabase, infraModes, natsUrlOrThrow, type TestDatabase } from '../testing/index';

async function deleteNatsStream(name: string): Promise<void> {
  const nc = await connect({ servers: natsUrlOrThrow() });
  try {
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent', name: 'db-inbox-test' });

describe.each(infraModes())('processOnce (%s)', (mode) => {
  let db: TestDatabase;
  let sql: Sql;
  let emptyMigrations: string;
  let schema: string;

  beforeAll(async () => {
    db = await createTestDatabase(mode);
    sql = createSql(db.url, { max: 6, log, applicationName: 'db-inbox-test' });
    emptyMigrations = await mkdtemp(path.join(tmpdir(), 'voice-inbox-'));
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await db?.drop();
    await rm(emptyMigrations, { recursive: true, force: true });
  });
  beforeEach(async () => {
    schema = `i_${randomBytes(4).toString('hex')}`;
    await migrate(sql, { schema, directory: emptyMigrations }, log);
    await sql`create table ${sql(schema)}.effects (event_id uuid not null, note text)`;
  });

  async function effects(): Promise<string[]> {
    const rows = await sql<{ event_id: string }[]>`select event_id from ${sql(schema)}.effects`;
    return rows.map((row) => row.event_id);
  }

  const applyEffect = (eventId: string) => async (tx: TransactionSql) => {
    await tx`insert into ${tx(schema)}.effects (event_id) values (${eventId})`;
    return 'applied';
  };

  it('runs the effect once and reports the second delivery as a duplicate', async () => {
    const eventId = randomUUID();
    expect(await processOnce(sql, schema, 'c1', eventId, applyEffect(eventId))).toEqual({
      duplicate: false,
      value: 'applied',
    });
    expect(await processOnce(sql, schema, 'c1', eventId, applyEffect(eventId))).toEqual({ duplicate: true });
    expect(await effects()).toEqual([eventId]);
  });

  it('tracks consumers separately', async () => {
    const eventId = randomUUID();
    await processOnce(sql, schema, 'c1', eventId, applyEffect(eventId));
    expect((await processOnce(sql, schema, 'c2', eventId, applyEffect(eventId))).duplicate).toBe(false);
    expect(await effects()).toEqual([eventId, eventId]);
  });

  it('rolls back the processed mark with a failed effect, so a redelivery applies it', async () => {
    const eventId = randomUUID();
    const failing = processOnce(sql, schema, 'c1', eventId, async (tx) => {
      await applyEffect(eventId)(tx);
      throw new Error('effect failed');
    });
    await expect(failing).rejects.toThrow('effect failed');
    expect(await effects()).toEqual([]);
    expect((await processOnce(sql, schema, 'c1', eventId, applyEffect(eventId))).duplicate).toBe(false);
    expect(await effects()).toEqual([eventId]);
  });

  it('applies once when two replicas process the same event at the same moment', async () => {
    const eventId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => processOnce(sql, schema, 'c1', eventId, applyEffect(eventId))),
    );
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(await effects()).toEqual([eventId]);
  });

  it('applies once when the bus redelivers an event whose ack was lost', async () => {
    const stream: StreamDefinition = {
      name: 'INBOX_TEST',
      subjects: ['events.inboxtest.>'],
      maxAgeMs: 600_000,
    };
    const prefix = `t${randomBytes(4).toString('hex')}`;
    const bus: Bus =
      mode === 'embedded'
        ? new InProcessBus({ requestTimeoutMs: 2000, log })
        : await NatsBus.connect({
            servers: natsUrlOrThrow(),
            name: 'db-inbox-test',
            prefix,
            requestTimeoutMs: 2000,
            log,
          });
    const deliveries: number[] = [];
    const relay = await startOutboxRelay({ sql, schema, bus, log, streams: [stream], pollIntervalMs: 100 });
    try {
      await bus.consume({
        stream,
        durable: 'inbox',
        subjects: ['events.inboxtest.>'],
        retryDelayMs: () => 50,
        handler: async (msg) => {
          deliveries.push(msg.deliveryCount);
          await processOnce(sql, schema, 'inbox', msg.id, applyEffect(msg.id));
          // The effect committed, but the ack "gets lost" the first time: the bus redelivers.
          if (msg.deliveryCount === 1) throw new Error('ack lost');
        },
      });
      const event = await sql.begin((tx) =>
        enqueueEvent(tx, schema, { subject: 'events.inboxtest.done', data: {}, accountId: 'acc_1' }),
      );
      await vi.waitFor(() => expect(deliveries).toEqual([1, 2]), { timeout: 15_000, interval: 20 });
      expect(await effects()).toEqual([event.id]);
    } finally {
      await relay.stop();
      await bus.close();
      if (mode === 'nats') await deleteNatsStream(`${prefix}_${stream.name}`);
    }
  });
});
