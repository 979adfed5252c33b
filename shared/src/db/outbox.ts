import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { streamStores } from '../bus/subject-match';
import type { Bus, BusHeaders, StreamDefinition } from '../bus/types';
import { waitAtMost } from '../bus/wait';
import type { EventOf } from '../contracts/events';
import type { Logger } from '../log';
import { assertIdentifier, type Sql, type TransactionSql, withDeadline } from './connect';

export interface NewEvent<T> {
  subject: string;
  data: T;
  accountId: string;
  headers?: BusHeaders;
  /** Defaults to a random UUID; pass one to make a retried state change produce the same event. */
  id?: string;
}

/**
 * The relays running in this process, by schema. A writer wakes its own service's relay once its
 * transaction committed, rather than with a NOTIFY: PostgreSQL serialises the commits of every
 * transaction that sends a NOTIFY (a database-wide lock held through the WAL flush), which held
 * every service's writes to one commit per disk flush. A relay of another process (a replica)
 * finds the rows at its next poll; the writer's own relay takes them at once.
 */
const relaysBySchema = new Map<string, Set<() => void>>();

/** Wakes this process's relays of `schema`: call after committing outbox rows of that schema. */
export function wakeOutboxRelays(schema: string): void {
  for (const wake of relaysBySchema.get(schema) ?? []) wake();
}

/** Schemas whose outbox a transaction wrote to, woken when it commits (see `transaction`). */
const wroteOutbox = new WeakMap<TransactionSql, Set<string>>();

/**
 * `sql.begin` that wakes the relays of the outboxes the transaction wrote to (enqueueEvent) once
 * it committed. Events written in a plain `sql.begin` are relayed all the same, at the relay's
 * next poll.
 */
export async function transaction<T>(sql: Sql, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  let used: TransactionSql | undefined;
  // Boxed so postgres.js's result-unwrapping types never see T itself.
  const box = await sql.begin(async (tx) => {
    used = tx;
    return { value: await work(tx) };
  });
  const schemas = used && wroteOutbox.get(used);
  if (schemas) for (const schema of schemas) wakeOutboxRelays(schema);
  return box.value;
}

/** The envelope an event is stored and published in. */
export function eventEnvelope<T>(event: NewEvent<T>): EventOf<T> {
  return {
    id: event.id ?? randomUUID(),
    type: event.subject,
    account_id: event.accountId,
    occurred_at: new Date().toISOString(),
    data: event.data,
  };
}

/**
 * The outbox insert of `envelope` as a fragment of a larger statement, written only where
 * `condition` holds: a state change and its event in one statement (one round trip, atomic
 * without a transaction; call wakeOutboxRelays after it). Returns the queued id.
 */
export function outboxInsert(
  sql: postgres.Sql | TransactionSql,
  schema: string,
  envelope: EventOf<unknown>,
  condition: postgres.PendingQuery<postgres.Row[]>,
  headers: BusHeaders = {},
) {
  return sql`
    insert into ${sql(assertIdentifier(schema))}.outbox (id, subject, payload, headers)
    select ${envelope.id}, ${envelope.type}, ${sql.json(envelope as unknown as postgres.JSONValue)}, ${sql.json(headers)}
    where ${condition}
    returning id`;
}

/**
 * Records an event in the same transaction as the state change it describes: it is relayed if
 * and only if the transaction commits. Run in `transaction`, the relay is woken at commit.
 */
export async function enqueueEvent<T>(
  tx: TransactionSql,
  schema: string,
  event: NewEvent<T>,
): Promise<EventOf<T>> {
  const envelope = eventEnvelope(event);
  await tx`${outboxInsert(tx, schema, envelope as EventOf<unknown>, tx`true`, event.headers)}`;
  const schemas = wroteOutbox.get(tx) ?? new Set<string>();
  schemas.add(schema);
  wroteOutbox.set(tx, schemas);
  return envelope;
}

export interface OutboxRelayOptions {
  sql: Sql;
  /**
   * For claims and the deletion of published rows, whose loss in a database crash only means an
   * event published again (deduplicated by its id): a pool whose commits do not wait for the disk.
   * Default `sql`.
   */
  bookkeepingSql?: Sql | undefined;
  schema: string;
  bus: Bus;
  log: Logger;
  /**
   * Streams the relayed subjects belong to; ensured once before the first publish. An event whose
   * subject is in none of them is a live event: a plain publish (no stream, no acknowledgement).
   */
  streams: StreamDefinition[];
  /**
   * Poll when nothing wakes the relay: rows written outside `transaction` or by another process,
   * retries after a failed publish.
   */
  pollIntervalMs?: number;
  batchSize?: number;
  /** Longest wait for the bus to take one event; the claim lease outlasts it. */
  publishTimeoutMs?: number;
  /** Longest wait in stop() for the batch in flight (default 2 s); see OutboxRelay.stop. */
  stopTimeoutMs?: number;
  /**
   * How long consumer inbox rows (processed_events) are kept. Longer than any stream's max age,
   * since no event older than that can be redelivered.
   */
  processedRetentionMs?: number;
  /**
   * Rows this relay deletes between its own VACUUMs of the outbox (default 500; 0 turns them
   * off). See `Relay.vacuumIfDue`.
   */
  vacuumEveryRows?: number;
}

export interface OutboxRelay {
  /**
   * Stops claiming and waits for the batch in flight, but at most `stopTimeoutMs` (2 s), well
   * inside any shutdown budget. Publishes still unconfirmed then are abandoned: their rows keep
   * their claim lease, so once it expires this or another relay publishes them again with the
   * same msgId (at least once: the bus and the consumers' inbox drop the duplicate). Stop relays
   * before their bus and consumers: the in-process bus only confirms once consumers acked.
   */
  stop(): Promise<void>;
}

interface OutboxRow {
  id: string;
  seq: string;
  subject: string;
  payload: unknown;
  headers: BusHeaders;
  attempts: number;
}

const CLEANUP_EVERY_MS = 60_000;
/** At most one VACUUM of the outbox per relay in this interval, however fast rows go. */
const VACUUM_MIN_INTERVAL_MS = 500;

/**
 * Relays committed outbox rows of one schema to the bus. Replicas may each run one: rows are
 * claimed with a lease (`FOR UPDATE SKIP LOCKED` in a single autocommit statement), so no two
 * relays publish the same row while the lease holds, and no transaction stays open while the bus
 * decides (the in-process bus resolves only after every durable consumer acked).
 *
 * Ordering is best effort: a batch is claimed in commit-sequence order and published
 * concurrently, and a failed event is retried after later ones went out. Consumers must use
 * the per-entity `sequence` in event data, never arrival order.
 *
 * A published row is deleted, not marked: marking it moved it out of the pending index, so
 * PostgreSQL wrote a whole copy of the event and new index entries, a large part of the WAL of a
 * POSTed call (docs/performance.md). Delivery is at least once: a crash between publish and
 * deletion re-publishes with the same msgId, which the bus deduplicates within its window and
 * consumers dedupe with `processOnce`.
 */
export async function startOutboxRelay(options: OutboxRelayOptions): Promise<OutboxRelay> {
  const relay = new Relay(options);
  await relay.start();
  return relay;
}

class Relay implements OutboxRelay {
  private readonly schema: string;
  private readonly batchSize: number;
  private readonly publishTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private running = true;
  private wakeRequested = false;
  private wakeUp: (() => void) | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly onWake = () => this.wake();
  private lastCleanup = 0;
  private deletedSinceVacuum = 0;
  private lastVacuum = 0;
  private readonly vacuumEveryRows: number;
  /** Published rows whose deletion goes with the next claim, in its statement (relayBatch). */
  private toDelete: string[] = [];

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertIdentifier(options.schema);
    this.batchSize = options.batchSize ?? 100;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 30_000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 2_000;
    this.vacuumEveryRows = options.vacuumEveryRows ?? 500;
  }

  async start(): Promise<void> {
    const { bus, streams } = this.options;
    for (const stream of streams) await bus.ensureStream(stream);
    const local = relaysBySchema.get(this.schema) ?? new Set();
    local.add(this.onWake);
    relaysBySchema.set(this.schema, local);
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    relaysBySchema.get(this.schema)?.delete(this.onWake);
    this.wakeUp?.();
    if (!(await waitAtMost(this.loopDone, this.stopTimeoutMs))) {
      // The loop finishes on its own (its publishes time out at the latest); until then it may
      // still delete rows it published, which is right, or fail to, which leaves them leased.
      this.options.log.info(
        { schema: this.schema, waited_ms: this.stopTimeoutMs },
        'outbox relay stopped with publishes unconfirmed; their rows are relayed again after the lease',
      );
    }
  }

  private wake(): void {
    this.wakeRequested = true;
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        this.wakeRequested = false;
        claimed = await this.relayBatch();
        await this.vacuumIfDue();
        await this.cleanupIfDue();
      } catch (error) {
        // After stop() gave up waiting, the pool may be closing under an abandoned pass.
        const level = this.running ? 'warn' : 'debug';
        this.options.log[level]({ err: error, schema: this.options.schema }, 'outbox relay pass failed');
      }
      // A full batch means more may be waiting: go again at once.
      if (claimed < this.batchSize) await this.sleep(this.options.pollIntervalMs ?? 1000);
    }
    const left = this.toDelete;
    this.toDelete = [];
    if (left.length > 0) {
      await this.deletePublished(left).catch((error: unknown) => {
        this.options.log.debug(
          { err: error, schema: this.options.schema },
          'outbox rows left to their lease',
        );
      });
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.wakeRequested || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  private async relayBatch(): Promise<number> {
    const rows = await this.claim();
    if (rows.length === 0) return 0;
    const outcomes = await Promise.allSettled(rows.map((row) => this.publish(row)));
    const published = rows.filter((_, i) => outcomes[i]!.status === 'fulfilled').map((row) => row.id);
    if (published.length > 0) {
      // More to claim at once (a writer committed meanwhile, or the batch was full): the next
      // claim deletes these in its own statement, one statement a batch instead of two. Until
      // then they hold their lease, so no relay publishes them again.
      const more = (this.wakeRequested || rows.length === this.batchSize) && this.running;
      if (more) this.toDelete.push(...published);
      else await this.deletePublished(published);
    }
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') await this.release(rows[i]!, outcome.reason);
    }
    return rows.length;
  }

  private async deletePublished(ids: string[]): Promise<void> {
    const sql = this.options.bookkeepingSql ?? this.options.sql;
    await sql`delete from ${sql(this.schema)}.outbox where id = any(${ids}::uuid[])`;
    this.deletedSinceVacuum += ids.length;
  }

  /**
   * Leases the next batch, deleting the rows published before it that wait for it (toDelete).
   * Those are leased to this relay, so the claim, which takes only rows without a live lease,
   * never takes them.
   */
  private async claim(): Promise<OutboxRow[]> {
    const sql = this.options.bookkeepingSql ?? this.options.sql;
    const leaseSeconds = (this.publishTimeoutMs + 30_000) / 1000;
    const done = this.toDelete;
    const deleting =
      done.length > 0
        ? sql`with done as (delete from ${sql(this.schema)}.outbox where id = any(${done}::uuid[]))`
        : sql``;
    const rows = await sql<OutboxRow[]>`
      ${deleting}
      update ${sql(this.schema)}.outbox o
         set lease_until = now() + make_interval(secs => ${leaseSeconds}), attempts = o.attempts + 1
       where o.id in (
         select id from ${sql(this.schema)}.outbox
          where published_at is null and (lease_until is null or lease_until < now())
          order by seq limit ${this.batchSize}
          for update skip locked)
      returning o.id, o.seq, o.subject, o.payload, o.headers, o.attempts`;
    // Nothing is added to toDelete while a claim is in flight (relayBatch claims first).
    if (done.length > 0) {
      this.deletedSinceVacuum += done.length;
      this.toDelete = [];
    }
    return [...rows].sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
  }

  /** Async so a bus that throws synchronously (closed) fails this row, not the whole batch. */
  private async publish(row: OutboxRow): Promise<void> {
    const { bus, streams } = this.options;
    const stored = streams.some((stream) => streamStores(stream, row.subject));
    const sent = stored
      ? bus.publishDurable(row.subject, row.payload, { msgId: row.id, headers: row.headers })
      : bus.publish(row.subject, row.payload, row.headers);
    return withDeadline(sent, this.publishTimeoutMs, `publishing ${row.subject}`);
  }

  /** Shortens the lease of a failed row to a backoff, so it is retried sooner than the full lease. */
  private async release(row: OutboxRow, error: unknown): Promise<void> {
    const delayMs = Math.min(60_000, 1000 * 2 ** Math.min(row.attempts - 1, 10));
    this.options.log[this.running ? 'warn' : 'debug'](
      {
        err: error,
        schema: this.options.schema,
        event_id: row.id,
        subject: row.subject,
        attempts: row.attempts,
        retry_in_ms: delayMs,
      },
      'outbox publish failed; will retry',
    );
    const { sql } = this.options;
    await sql`update ${sql(this.schema)}.outbox
      set lease_until = now() + make_interval(secs => ${delayMs / 1000}) where id = ${row.id}`;
  }

  /**
   * The claim walks the pending index from its oldest entry, and every deleted row leaves a dead
   * entry there (and a dead tuple in the heap) until VACUUM removes it: the index scan cannot mark
   * them dead itself while new rows keep changing the same index pages. Left to autovacuum, which
   * may run a minute apart, be throttled, or be off (this machine's server runs with
   * `autovacuum = off`), a claim over an outbox with thousands of deletions behind it reads
   * thousands of buffers and is many times slower than over a vacuumed one, and every event waits
   * for it (docs/performance.md). So the relay vacuums its own outbox after every
   * `vacuumEveryRows` deletions: cheap over a table that holds only rows in flight. SKIP_LOCKED:
   * another replica's VACUUM is as good as ours, so never queue behind it.
   */
  private async vacuumIfDue(): Promise<void> {
    if (this.vacuumEveryRows <= 0 || this.deletedSinceVacuum < this.vacuumEveryRows) return;
    if (Date.now() - this.lastVacuum < VACUUM_MIN_INTERVAL_MS) return;
    this.deletedSinceVacuum = 0;
    this.lastVacuum = Date.now();
    const sql = this.options.bookkeepingSql ?? this.options.sql;
    await sql`vacuum (skip_locked, truncate false) ${sql(this.schema)}.outbox`.simple();
  }

  private async cleanupIfDue(): Promise<void> {
    if (Date.now() - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = Date.now();
    const { sql } = this.options;
    const keepProcessedSeconds = (this.options.processedRetentionMs ?? 8 * 86_400_000) / 1000;
    // Rows an earlier version marked published instead of deleting.
    await sql`delete from ${sql(this.schema)}.outbox where published_at is not null`;
    await sql`delete from ${sql(this.schema)}.processed_events
      where processed_at < now() - make_interval(secs => ${keepProcessedSeconds})`;
  }
}
