import {
  type CallFilters,
  cursorTime,
  type EventOf,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageStart,
  type Sql,
  type TransactionSql,
  wakeOutboxRelays,
} from '@voice/shared';
import { type CallRecordRow, type CallRow, RECORD_COLUMNS } from './call-rows';
import { transcriptText } from './export-sql';

type Db = Sql | TransactionSql;
export type NewCall = Pick<
  CallRow,
  | 'id'
  | 'agent_id'
  | 'agent_snapshot'
  | 'campaign_id'
  | 'phone_number'
  | 'source_number'
  | 'metadata'
  | 'started_at'
  | 'prompt_version_id'
  | 'prompt_hash'
  | 'owner'
  | 'carrier'
  | 'trunk_id'
>;
export type CallChanges = Partial<Omit<CallRow, 'id' | 'account_id' | 'created_at'>>;

/** What markDialed did with a batch. */
export interface DialMarks {
  dialed: { id: string; dialed_at: Date }[];
  /** Calls whose account is at its limit: not dialed, still waiting. */
  held: string[];
  /** Each account of the batch: its limit (`known` false: the fallback), and slots free now. */
  accounts: { account_id: string; limit: number; known: boolean; free: number }[];
}

interface DialMarkRow {
  kind: 'dialed' | 'held' | 'account';
  id: string | null;
  account_id: string;
  dialed_at: Date | null;
  cap: number | null;
  known: boolean | null;
  free: number | null;
}

/**
 * A new call's row as the database will hold it, built here so that its first event (which
 * carries the record) is written in the same statement as the row.
 *
 * Every field is written out, in one literal: `{ ...call, <18 more> }` made V8 (Node 20) add the
 * fields one by one past its limit for fast objects, turning each row into a dictionary, many times
 * slower to build (docs/performance.md).
 */
export function newCallRow(accountId: string, call: NewCall, createdAt: Date): CallRow {
  return {
    id: call.id,
    agent_id: call.agent_id,
    agent_snapshot: call.agent_snapshot,
    campaign_id: call.campaign_id,
    phone_number: call.phone_number,
    source_number: call.source_number,
    metadata: call.metadata,
    started_at: call.started_at,
    prompt_version_id: call.prompt_version_id,
    prompt_hash: call.prompt_hash,
    owner: call.owner,
    carrier: call.carrier,
    trunk_id: call.trunk_id,
    account_id: accountId,
    status: 'initializing',
    sequence: 1,
    created_at: createdAt,
    dialed_at: null,
    answered_at: null,
    ended_at: null,
    duration_seconds: 0,
    transcript: [],
    sentiment: null,
    call_summary: null,
    call_end_reason: null,
    ended_by: null,
    details_collection: null,
    ai_cost: '0',
    telephony_cost: '0',
    total_cost: '0',
    sip_code: null,
    sip_reason: null,
    recorded: null,
    opted_out: false,
  };
}

/** One call's move in `advanceAll`: from the row as its driver knows it to the next one. */
export interface Move {
  from: CallRow;
  to: CallRow;
  at: Date;
  /** Its durable event: CALL_ENDED on the final transition, CALL_PROGRESS on ringing and the answer. */
  ended: EventOf<unknown> | undefined;
}

/** The columns whose values differ between two versions of a call, as they are. */
function changedValues(from: CallRow, to: CallRow): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(to) as (keyof CallRow)[]) {
    if (to[key] !== from[key]) values[key] = to[key];
  }
  return values;
}

/**
 * `opted_out AS (...)`, a step of a statement whose `changed` step answers moved calls with their
 * account_id, phone_number and opted_out: a callee who asked not to be called again is put on the
 * account's do-not-call list by the statement that ends the call (all or nothing with it). A number
 * listed already keeps its entry.
 */
function optOuts(db: Db) {
  return db`opted_out AS (
    INSERT INTO call.do_not_call (account_id, number, reason, source, call_id)
    SELECT account_id, phone_number, 'The callee asked not to be called again', 'opt_out', id
    FROM changed WHERE opted_out
    ON CONFLICT (account_id, number) DO NOTHING
  )`;
}

/** transcriptText (export-sql.ts) of a transcript sent as a parameter, named for it in a subquery. */
function textOf(db: Db, transcript: unknown) {
  return db`(SELECT ${db.unsafe(transcriptText('p.transcript'))} FROM (SELECT ${transcript as never}::jsonb AS transcript) p)`;
}

/** Filters of the list and the export, always within one account. */
export function filtered(db: Db, accountId: string, filters: CallFilters) {
  return db`
    account_id = ${accountId}
    ${filters.status ? db`AND status = ${filters.status}` : db``}
    ${filters.agent_id ? db`AND agent_id = ${filters.agent_id}` : db``}
    ${filters.campaign_id ? db`AND campaign_id = ${filters.campaign_id}` : db``}
    ${filters.from ? db`AND created_at >= ${filters.from}` : db``}
    ${filters.to ? db`AND created_at < ${filters.to}` : db``}`;
}

/** The call schema's SQL: every read is scoped by account, so another account's call is not found. */
export const callRepository = {
  /**
   * Stores new calls, each with its first transition, in one statement (atomic without a
   * transaction, one round trip however many). Answers the ids it stored: a call whose id exists
   * already (a caller-chosen id) is not, and nothing of it is written. Ids must be distinct within
   * one call.
   */
  async placeAll(sql: Sql, calls: readonly CallRow[]): Promise<Set<string>> {
    // The rows travel as one JSON parameter, read back by json_populate_recordset: postgres.js
    // serialised 28 parameters per call one by one (and PostgreSQL parsed as many), and every
    // batch size was a statement of its own. The columns are the rows' own fields, named, so a
    // column a row does not carry keeps its default. The list is a fragment, not sql(keys):
    // postgres.js picks a helper's rendering from the nearest keyword before it and, after
    // `WITH placed AS (` and `INSERT`, rendered the names as an insert of values.
    const columns = sql.unsafe(
      Object.keys(calls[0]!)
        .map((column) => `"${column.replaceAll('"', '""')}"`)
        .join(','),
    );
    const written = await sql<{ id: string }[]>`
      WITH placed AS (
        INSERT INTO call.calls (${columns})
        SELECT ${columns} FROM json_populate_recordset(null::call.calls, ${JSON.stringify(calls)}::text::json)
        ON CONFLICT (id) DO NOTHING
        RETURNING id, started_at
      ), first AS (
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        SELECT id, 1, 'initializing', started_at FROM placed
      )
      SELECT id FROM placed`;
    return new Set(written.map((w) => w.id));
  },

  /**
   * Marks queued calls of `owner` as handed to the carrier now (in a transaction of its own: the
   * accounts' locks are held until it ends), each only while its account has
   * fewer calls dialed and not ended than its limit (`fallbackLimit` for an account the gateway has
   * not told us of yet). Exact across instances: the accounts' advisory locks are taken first, in
   * one order (no deadlock), so every instance's count of an account's dialed calls sees the dials
   * committed before it. Calls over the limit are `held` (they wait); a call taken over by another
   * instance, or ended meanwhile, is neither dialed nor held. `dialed_at` is the clock after the
   * count, so an ended call's `ended_at` is never after the dial that took its slot.
   *
   * The status tests are written `(...) IS TRUE` so the planner cannot prove the partial live index
   * applies: with `status = 'initializing'` it may pick that index (small by stale statistics) and
   * walk every live call, thousands while a backlog waits, instead of looking up these few ids.
   */
  async markDialed(
    tx: TransactionSql,
    owner: string,
    calls: readonly Pick<CallRow, 'id' | 'account_id'>[],
    fallbackLimit: number,
  ): Promise<DialMarks> {
    const ids = calls.map((c) => c.id);
    const accountIds = calls.map((c) => c.account_id);
    // Sent together (pipelined): the server runs the second statement, with a snapshot of its own,
    // only once the first holds the locks, and the dial is stamped one round trip sooner.
    const locked = tx`
        SELECT count(pg_advisory_xact_lock(hashtext('call.account_dials'), k)) FROM (
          SELECT DISTINCT hashtext(a::text) AS k FROM unnest(${accountIds}::uuid[]) a ORDER BY 1) keys`.execute();
    const marking = tx<DialMarkRow[]>`
        WITH wanted AS (
          SELECT w.id, w.account_id, w.n
          FROM unnest(${ids}::uuid[], ${accountIds}::uuid[]) WITH ORDINALITY AS w(id, account_id, n)
        ), eligible AS (
          SELECT w.id, w.account_id, w.n FROM wanted w JOIN call.calls c ON c.id = w.id
          WHERE c.account_id = w.account_id AND c.owner = ${owner} AND c.dialed_at IS NULL
            AND (c.status = 'initializing') IS TRUE
        ), limits AS (
          SELECT a.account_id, coalesce(l.max_concurrent_calls, ${fallbackLimit}) AS cap,
            l.account_id IS NOT NULL AS known,
            -- Written as calls_account_live_idx's predicate, so that index serves it (migration 011).
            (SELECT count(*) FROM call.calls d WHERE d.account_id = a.account_id AND d.dialed_at IS NOT NULL
              AND d.status NOT IN ('completed', 'no_answer', 'failed', 'voicemail', 'busy'))::int AS active
          FROM (SELECT DISTINCT account_id FROM wanted) a
          LEFT JOIN call.account_limits l ON l.account_id = a.account_id
        ), ranked AS (
          SELECT e.id, e.account_id, row_number() OVER (PARTITION BY e.account_id ORDER BY e.n) AS r
          FROM eligible e
        ), marked AS (
          UPDATE call.calls c SET dialed_at = date_trunc('milliseconds', clock_timestamp())
          FROM ranked r JOIN limits l ON l.account_id = r.account_id
          WHERE c.id = r.id AND r.r <= l.cap - l.active AND c.owner = ${owner} AND c.dialed_at IS NULL
            AND (c.status = 'initializing') IS TRUE
          RETURNING c.id, c.account_id, c.dialed_at
        )
        SELECT 'dialed' AS kind, id, account_id, dialed_at, NULL::int AS cap, NULL::boolean AS known,
          NULL::int AS free FROM marked
        UNION ALL
        SELECT 'held', r.id, r.account_id, NULL, NULL, NULL, NULL
        FROM ranked r JOIN limits l ON l.account_id = r.account_id WHERE r.r > l.cap - l.active
        UNION ALL
        SELECT 'account', NULL, l.account_id, NULL, l.cap, l.known,
          greatest(0, l.cap - l.active - (SELECT count(*) FROM marked m WHERE m.account_id = l.account_id))::int
        FROM limits l`.execute();
    const [, rows] = await Promise.all([locked, marking]);
    const marks: DialMarks = { dialed: [], held: [], accounts: [] };
    for (const row of rows) {
      if (row.kind === 'dialed') marks.dialed.push({ id: row.id!, dialed_at: row.dialed_at! });
      else if (row.kind === 'held') marks.held.push(row.id!);
      else
        marks.accounts.push({
          account_id: row.account_id,
          limit: row.cap!,
          known: row.known!,
          free: row.free!,
        });
    }
    return marks;
  },

  /**
   * Makes a stored call that was never dialed `owner`'s, to dial it there; undefined when it was
   * dialed or ended meanwhile. Whoever owned it before can no longer mark it dialed (markDialed
   * checks the owner), so it is dialed once whichever instance had it queued.
   */
  async adopt(db: Db, owner: string, id: string): Promise<CallRow | undefined> {
    const [row] = await db<CallRow[]>`
      UPDATE call.calls SET owner = ${owner}
      WHERE id = ${id} AND dialed_at IS NULL AND (status = 'initializing') IS TRUE
      RETURNING *`;
    return row;
  },

  async find(db: Db, accountId: string, id: string): Promise<CallRow | undefined> {
    const [row] = await db<
      CallRow[]
    >`SELECT * FROM call.calls WHERE id = ${id} AND account_id = ${accountId}`;
    return row;
  },

  async lock(tx: TransactionSql, id: string): Promise<CallRow | undefined> {
    const [row] = await tx<CallRow[]>`SELECT * FROM call.calls WHERE id = ${id} FOR UPDATE`;
    return row;
  },

  /**
   * One page of the account's calls, newest first, at the same cost however long its history: after
   * a cursor it reads from the cursor's key on (keyset), through the index of the filter (migration
   * 011), only the columns the record shows, and one row more to learn whether a page follows. The
   * total is counted up to EXACT_TOTAL_MAX rows, then estimated (shared/src/db/paging.ts).
   */
  async page(
    db: Db,
    accountId: string,
    filters: CallFilters,
    query: PageQuery,
  ): Promise<{ rows: CallRecordRow[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'calls');
    const where = filtered(db, accountId, filters);
    const { after } = start;
    const rows = await db<(CallRecordRow & { sort_at: string })[]>`
      SELECT ${db(RECORD_COLUMNS)},
        jsonb_build_object('name', agent_snapshot->'name', 'agent_type', agent_snapshot->'agent_type') AS agent_snapshot,
        created_at::text AS sort_at
      FROM call.calls WHERE ${where}
      ${after ? db`AND (created_at, id) < (${cursorTime(db, after[0])}, ${after[1]}::uuid)` : db``}
      ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}`;
    const page = pageEnd(rows, start, query.page_size, (row) => [row.sort_at, row.id]);
    const extent = await pageExtent(db, db`call.calls WHERE ${where}`, start, page);
    return { rows: page.rows, extent };
  },

  /**
   * Moves calls, each from its `from` to its `to` (its next sequence), in one statement
   * (TransitionWriter groups them): each with its history row and, on its final transition, its
   * CALL_ENDED, only if it is still stored at `from.sequence`: no lock held across round trips,
   * and nothing written for a call anyone else moved meanwhile (its caller then takes the locked
   * path with the stored row). Answers the ids it moved. Each call sets only its own
   * changed columns (`jsonb_populate_record` reads them; a column another call changes keeps this
   * call's stored value), so a column written without a new sequence (dialed_at) is never undone.
   * Ids must be distinct within one call.
   */
  async advanceAll(sql: Sql, moves: readonly Move[]): Promise<Set<string>> {
    const columns = new Set<string>();
    const items = moves.map((move) => {
      const changes = changedValues(move.from, move.to);
      for (const column of Object.keys(changes)) columns.add(column);
      return { id: move.from.id, from_sequence: move.from.sequence, at: move.at, changes };
    });
    const events = moves.flatMap((move) => (move.ended ? [{ id: move.from.id, event: move.ended }] : []));
    const set = [...columns].map(
      (column) =>
        sql`${sql(column)} = CASE WHEN i.changes ? ${column} THEN r.${sql(column)} ELSE c.${sql(column)} END`,
    );
    // A new transcript comes with its text for the export (migration 014), made from it here.
    if (columns.has('transcript'))
      set.push(
        sql`transcript_text = CASE WHEN i.changes ? 'transcript' THEN ${sql.unsafe(transcriptText('r.transcript'))}
          ELSE c.transcript_text END`,
      );
    const assignments = set.reduce((all, one) => sql`${all}, ${one}`);
    const written = await sql<{ id: string }[]>`
      WITH input AS (
        SELECT (m->>'id')::uuid AS id, (m->>'from_sequence')::int AS from_sequence,
               (m->>'at')::timestamptz AS at, m->'changes' AS changes
        FROM jsonb_array_elements(${sql.json(items as never)}) m
      ), changed AS (
        UPDATE call.calls c SET ${assignments}
        FROM input i CROSS JOIN LATERAL jsonb_populate_record(null::call.calls, i.changes) r
        WHERE c.id = i.id AND c.sequence = i.from_sequence
        RETURNING c.id, c.sequence, c.status, i.at, c.account_id, c.phone_number, c.opted_out
      ), recorded AS (
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        SELECT id, sequence, status, at FROM changed
      ), ${optOuts(sql)}, queued AS (
        INSERT INTO call.outbox (id, subject, payload, headers)
        SELECT (e->'event'->>'id')::uuid, e->'event'->>'type', e->'event', '{}'::jsonb
        FROM jsonb_array_elements(${sql.json(events as never)}) e
        WHERE (e->>'id')::uuid IN (SELECT id FROM changed)
      )
      SELECT id FROM changed`;
    if (events.length > 0 && written.length > 0) wakeOutboxRelays('call');
    return new Set(written.map((w) => w.id));
  },

  /** Applies a transition and records it; the caller holds the row lock. */
  async transition(
    tx: TransactionSql,
    row: CallRow,
    changes: CallChanges & { status: CallRow['status'] },
    at: Date,
  ) {
    const sequence = row.sequence + 1;
    const values: Record<string, unknown> = { ...changes, sequence };
    for (const key of ['transcript', 'details_collection'] as const) {
      if (key in changes && changes[key] !== null) values[key] = tx.json(changes[key] as never);
    }
    // A new transcript comes with its text for the export (migration 014), made from the same value.
    const text = 'transcript' in values ? tx`, transcript_text = ${textOf(tx, values.transcript)}` : tx``;
    // The change and its history row in one round trip.
    const [updated] = await tx<CallRow[]>`
      WITH changed AS (
        UPDATE call.calls SET ${tx(values as never)}${text} WHERE id = ${row.id} RETURNING *
      ), recorded AS (
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        VALUES (${row.id}, ${sequence}, ${changes.status}, ${at})
      ), ${optOuts(tx)}
      SELECT * FROM changed`;
    return updated!;
  },

  /**
   * Live calls whose driver is gone, claimed for `owner`: released ones (no driver) and those of an
   * instance whose lease lapsed (it crashed, stopped, or cannot reach the database). Both are found
   * through the live index by owner, without reading the calls of live instances.
   *
   * With `sweep`, also calls whose driver has no lease row at all a whole lease after they started.
   * Every instance writes its row before it places a call and keeps it while it drives any, so
   * these should not exist; the sweep reads every live call, so the keeper runs it only now and
   * then.
   */
  async claimOrphans(
    db: Db,
    owner: string,
    leaseSeconds: number,
    limit: number,
    sweep = false,
  ): Promise<CallRow[]> {
    const live = db`status IN ('initializing', 'ringing', 'in_progress')`;
    const lapsed = db`ARRAY(SELECT id FROM call.instances WHERE lease_until < now())`;
    // Each kind of orphan is its own range of the live index (owner, started_at): an OR of them
    // would walk every live call instead.
    const gone = sweep
      ? db`UNION ALL (SELECT id FROM call.calls l WHERE ${live} AND l.owner IS NOT NULL
          AND l.started_at < now() - make_interval(secs => ${leaseSeconds})
          AND NOT EXISTS (SELECT 1 FROM call.instances i WHERE i.id = l.owner)
          ORDER BY started_at LIMIT ${limit})`
      : db``;
    return db<CallRow[]>`
      WITH candidates AS (
        (SELECT id FROM call.calls WHERE ${live} AND owner IS NULL ORDER BY started_at LIMIT ${limit})
        UNION ALL
        (SELECT id FROM call.calls WHERE ${live} AND owner = ANY(${lapsed}) ORDER BY started_at LIMIT ${limit})
        ${gone}
      ), claimed AS (
        SELECT l.id FROM call.calls l
        WHERE l.id IN (SELECT id FROM candidates) AND l.status IN ('initializing', 'ringing', 'in_progress')
          AND (l.owner IS NULL OR l.owner = ANY(${lapsed})
            ${sweep ? db`OR NOT EXISTS (SELECT 1 FROM call.instances i WHERE i.id = l.owner)` : db``})
        ORDER BY l.started_at LIMIT ${limit} FOR UPDATE OF l SKIP LOCKED
      )
      UPDATE call.calls c SET owner = ${owner} WHERE c.id IN (SELECT id FROM claimed)
      RETURNING c.*`;
  },

  /**
   * Renews `owner`'s lease on every call it drives: one row, however many calls it holds (those
   * rows are never rewritten for it).
   */
  async renewLease(db: Db, owner: string, leaseSeconds: number): Promise<void> {
    await db`
      INSERT INTO call.instances (id, lease_until) VALUES (${owner}, now() + make_interval(secs => ${leaseSeconds}))
      ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`;
  },

  /** Hands `owner`'s calls among `ids` back (a clean stop): orphans for any instance to take over. */
  async release(db: Db, owner: string, ids: string[]): Promise<void> {
    await db`UPDATE call.calls SET owner = NULL WHERE owner = ${owner} AND id = ANY(${ids}::uuid[])`;
  },

  /**
   * Ends `owner`'s lease now (a clean stop, after handing its calls back): any call still naming it
   * is an orphan at once. The row goes once no live call names it (forgetGoneInstances).
   */
  async endLease(db: Db, owner: string): Promise<void> {
    await db`UPDATE call.instances SET lease_until = now() WHERE id = ${owner}`;
  },

  /** Forgets instances whose lease lapsed a while ago and whose calls were all taken over or ended. */
  async forgetGoneInstances(db: Db, leaseSeconds: number): Promise<void> {
    await db`
      DELETE FROM call.instances i
      WHERE i.lease_until < now() - make_interval(secs => ${leaseSeconds})
        AND NOT EXISTS (SELECT 1 FROM call.calls c
          WHERE c.owner = i.id AND c.status IN ('initializing', 'ringing', 'in_progress'))`;
  },

  /**
   * Live calls dialed before their carrier's cutoff: past any plausible end, so stuck. Queued calls
   * are not. Calls over a SIP trunk run in wall time and may last far longer than simulated ones.
   */
  async stuck(db: Db, cutoff: { simulated: Date; sip: Date }, limit: number): Promise<{ id: string }[]> {
    return db<{ id: string }[]>`
      SELECT id FROM call.calls WHERE status IN ('initializing', 'ringing', 'in_progress')
        AND dialed_at < CASE WHEN trunk_id IS NULL THEN ${cutoff.simulated}::timestamptz ELSE ${cutoff.sip}::timestamptz END
      ORDER BY dialed_at LIMIT ${limit}`;
  },

  /** Which of `ids` ended (or are gone): calls a session here still waits on, ended elsewhere. */
  async ended(db: Db, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const live = await db<{ id: string }[]>`
      SELECT id FROM call.calls WHERE id = ANY(${ids}::uuid[])
        AND status IN ('initializing', 'ringing', 'in_progress')`;
    const still = new Set(live.map((row) => row.id));
    return ids.filter((id) => !still.has(id));
  },
};
