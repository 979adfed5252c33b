import { type CallFilters, type PageQuery, pageTotal, type Sql, type TransactionSql } from '@voice/shared';
import type { CallRow } from './call-rows';

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
  | 'lease_until'
>;
export type CallChanges = Partial<Omit<CallRow, 'id' | 'account_id' | 'created_at'>>;

/** Filters of the list and the export, always within one account. */
function filtered(db: Db, accountId: string, filters: CallFilters) {
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
  /** The new call, or undefined when a call with this id exists already (a caller-chosen id). */
  async insert(tx: TransactionSql, accountId: string, call: NewCall): Promise<CallRow | undefined> {
    // The call and its first transition in one round trip.
    const [row] = await tx<CallRow[]>`
      WITH placed AS (
        INSERT INTO call.calls ${tx({
          ...call,
          account_id: accountId,
          status: 'initializing',
          sequence: 1,
          agent_snapshot: tx.json(call.agent_snapshot as never),
          metadata: call.metadata === null ? null : tx.json(call.metadata as never),
        } as never)}
        ON CONFLICT (id) DO NOTHING
        RETURNING *
      ), first AS (
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        SELECT id, 1, 'initializing', started_at FROM placed
      )
      SELECT * FROM placed`;
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

  async page(
    db: Db,
    accountId: string,
    filters: CallFilters,
    page: PageQuery,
  ): Promise<{ rows: CallRow[]; total: number }> {
    const rows = await db<(CallRow & { total: number })[]>`
      SELECT *, count(*) OVER ()::int AS total FROM call.calls WHERE ${filtered(db, accountId, filters)}
      ORDER BY created_at DESC, id DESC LIMIT ${page.page_size} OFFSET ${(page.page - 1) * page.page_size}`;
    const total = await pageTotal(
      rows,
      () =>
        db<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM call.calls WHERE ${filtered(db, accountId, filters)}`,
    );
    return { rows, total };
  },

  /** The next `limit` calls after `after` (newest first): a keyset cursor, served by the index. */
  async after(
    db: Db,
    accountId: string,
    filters: CallFilters,
    after: { created_at: string; id: string } | null,
    limit: number,
  ) {
    return db<CallRow[]>`
      SELECT * FROM call.calls WHERE ${filtered(db, accountId, filters)}
      ${after ? db`AND (created_at, id) < (${after.created_at}::timestamptz, ${after.id}::uuid)` : db``}
      ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
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
    // The change and its history row in one round trip.
    const [updated] = await tx<CallRow[]>`
      WITH changed AS (
        UPDATE call.calls SET ${tx(values as never)} WHERE id = ${row.id} RETURNING *
      ), recorded AS (
        INSERT INTO call.call_transitions (call_id, sequence, status, at)
        VALUES (${row.id}, ${sequence}, ${changes.status}, ${at})
      )
      SELECT * FROM changed`;
    return updated!;
  },

  /** Live calls whose driver's lease lapsed (it stopped or crashed): claimed for this instance. */
  async claimOrphans(db: Db, owner: string, leaseSeconds: number, limit: number): Promise<CallRow[]> {
    return db<CallRow[]>`
      UPDATE call.calls c SET owner = ${owner}, lease_until = now() + make_interval(secs => ${leaseSeconds})
      WHERE c.id IN (
        SELECT id FROM call.calls
        WHERE status IN ('initializing', 'ringing', 'in_progress') AND (lease_until IS NULL OR lease_until < now())
        ORDER BY started_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING c.*`;
  },

  async renewLeases(db: Db, owner: string, ids: string[], leaseSeconds: number): Promise<void> {
    if (ids.length === 0) return;
    await db`
      UPDATE call.calls SET lease_until = now() + make_interval(secs => ${leaseSeconds})
      WHERE owner = ${owner} AND id = ANY(${ids}::uuid[]) AND status IN ('initializing', 'ringing', 'in_progress')`;
  },

  /** Live calls started before `cutoff`: past any plausible end, so stuck. */
  async stuck(db: Db, cutoff: Date, limit: number): Promise<{ id: string }[]> {
    return db<{ id: string }[]>`
      SELECT id FROM call.calls WHERE status IN ('initializing', 'ringing', 'in_progress') AND started_at < ${cutoff}
      ORDER BY started_at LIMIT ${limit}`;
  },
};
