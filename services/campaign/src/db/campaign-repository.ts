import {
  type CampaignCounts,
  type CampaignSettings,
  type CampaignStatus,
  cursorTime,
  type PageExtent,
  type PageQuery,
  pageEnd,
  pageExtent,
  pageStart,
  type Sql,
  type TransactionSql,
  type UpdateCampaignBody,
} from '@voice/shared';
import { CAMPAIGN_COLUMNS, type CampaignRow, type CampaignView } from './campaign-rows';

type Db = Sql | TransactionSql;
export type CampaignChanges = Partial<
  Pick<
    CampaignRow,
    'status' | 'started_at' | 'finished_at' | 'prepared_through' | 'preparation_failures' | 'failure_reason'
  >
>;

/** The campaigns table. Reads for clients are scoped by account; drafts are never listed. */
export const campaignRepository = {
  async insertDraft(db: Db, accountId: string, id: string, settings: CampaignSettings): Promise<void> {
    await db`
      INSERT INTO campaign.campaigns ${db({
        id,
        account_id: accountId,
        name: settings.name,
        agent_id: settings.agent_id,
        phone_number: settings.phone_number,
        phone_column: settings.phone_column,
        max_concurrent_calls: settings.max_concurrent_calls,
        retry_config: settings.retry_config ? db.json(settings.retry_config) : null,
        calling_window: settings.calling_window ? db.json(settings.calling_window) : null,
        status: 'draft',
        start_at: settings.start_at ?? null,
      } as never)}`;
  },

  /**
   * Adds a chunk's newly stored contacts to a draft's counts (total = contacts received), so a start
   * checks them without counting. The row is locked from here to commit only, so chunks stored
   * concurrently wait for each other's few statements, not their inserts. False when the campaign is
   * no longer a draft (started meanwhile): the caller rolls the chunk back.
   */
  async addReceived(
    tx: TransactionSql,
    id: string,
    received: { pending: number; skipped: number },
  ): Promise<boolean> {
    const plus = (key: string, n: number) => tx`coalesce((counts->>${key})::int, 0) + ${n}`;
    const rows = await tx`
      UPDATE campaign.campaigns SET counts = counts || jsonb_build_object(
        'total', ${plus('total', received.pending + received.skipped)},
        'pending', ${plus('pending', received.pending)},
        'skipped', ${plus('skipped', received.skipped)})
      WHERE id = ${id} AND status = 'draft' RETURNING 1`;
    return rows.length === 1;
  },

  /** Deletes the account's campaign if it is still a draft (its contacts cascade). */
  async deleteDraft(db: Db, accountId: string, id: string): Promise<boolean> {
    const rows = await db`
      DELETE FROM campaign.campaigns WHERE id = ${id} AND account_id = ${accountId} AND status = 'draft'
      RETURNING 1`;
    return rows.length === 1;
  },

  async find(db: Db, accountId: string, id: string): Promise<CampaignRow | undefined> {
    const [row] = await db<CampaignRow[]>`
      SELECT * FROM campaign.campaigns WHERE id = ${id} AND account_id = ${accountId}`;
    return row;
  },

  /** The account's campaign, locked: every change to it or its contacts runs under this lock. */
  async lock(tx: TransactionSql, accountId: string, id: string): Promise<CampaignRow | undefined> {
    const [row] = await tx<CampaignRow[]>`
      SELECT * FROM campaign.campaigns WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`;
    return row;
  },

  /** A running campaign, locked, unless another dispatcher holds it (it is dispatching it now). */
  async lockRunning(tx: TransactionSql, id: string): Promise<CampaignRow | undefined> {
    const [row] = await tx<CampaignRow[]>`
      SELECT * FROM campaign.campaigns WHERE id = ${id} AND status = 'running' FOR UPDATE SKIP LOCKED`;
    return row;
  },

  /** A preparing campaign, locked, unless another replica holds it (it is preparing it now). */
  async lockPreparing(tx: TransactionSql, id: string): Promise<CampaignRow | undefined> {
    const [row] = await tx<CampaignRow[]>`
      SELECT * FROM campaign.campaigns WHERE id = ${id} AND status = 'preparing' FOR UPDATE SKIP LOCKED`;
    return row;
  },

  /** Campaigns still preparing, oldest first. */
  async preparing(db: Db, limit: number): Promise<string[]> {
    const rows = await db<{ id: string }[]>`
      SELECT id FROM campaign.campaigns WHERE status = 'preparing' ORDER BY created_at LIMIT ${limit}`;
    return rows.map((r) => r.id);
  },

  /** A PATCH's changes of the settings (the caller holds the row lock and checked the status). */
  async changeSettings(tx: TransactionSql, id: string, changes: UpdateCampaignBody): Promise<CampaignRow> {
    const columns: Record<string, unknown> = {};
    if (changes.name !== undefined) columns.name = changes.name;
    if (changes.max_concurrent_calls !== undefined)
      columns.max_concurrent_calls = changes.max_concurrent_calls;
    if (changes.retry_config !== undefined) {
      columns.retry_config = changes.retry_config === null ? null : tx.json(changes.retry_config);
    }
    if (changes.calling_window !== undefined) {
      columns.calling_window = changes.calling_window === null ? null : tx.json(changes.calling_window);
    }
    const [row] = await tx<CampaignRow[]>`
      UPDATE campaign.campaigns SET ${tx(columns as never)} WHERE id = ${id} RETURNING *`;
    return row!;
  },

  async update(tx: TransactionSql, id: string, changes: CampaignChanges): Promise<CampaignRow> {
    const [row] = await tx<CampaignRow[]>`
      UPDATE campaign.campaigns SET ${tx(changes as never)} WHERE id = ${id} RETURNING *`;
    return row!;
  },

  /**
   * Stores the counts and bumps the progress sequence; `completedAt` also completes the campaign,
   * in the same statement. Only over the sequence the caller read under its lock (`from`): false
   * when the row moved on meanwhile, which the lock rules out, so the caller fails instead.
   */
  async saveProgress(
    tx: TransactionSql,
    from: { id: string; sequence: number },
    counts: CampaignCounts,
    completedAt: Date | null,
  ): Promise<boolean> {
    const completion = completedAt ? tx`, status = 'completed', finished_at = ${completedAt}` : tx``;
    const rows = await tx`
      UPDATE campaign.campaigns SET counts = ${tx.json(counts)}, sequence = ${from.sequence + 1} ${completion}
      WHERE id = ${from.id} AND sequence = ${from.sequence} RETURNING 1`;
    return rows.length === 1;
  },

  /**
   * A page of the account's campaigns (never drafts), newest first: by keyset after a cursor, by
   * offset for a page number, reading the columns the public form needs only. Served by
   * campaigns_account_created_idx, or campaigns_account_status_created_idx with a status.
   */
  async page(
    db: Db,
    accountId: string,
    status: CampaignStatus | undefined,
    query: PageQuery,
  ): Promise<{ rows: CampaignView[]; extent: PageExtent }> {
    const start = pageStart(query, ['timestamp', 'uuid'], 'campaigns');
    const where = db`account_id = ${accountId} AND status <> 'draft'
      ${status ? db`AND status = ${status}` : db``}`;
    const after = start.after
      ? db`AND (created_at, id) < (${cursorTime(db, start.after[0])}, ${start.after[1]}::uuid)`
      : db``;
    const rows = await db<(CampaignView & { sort_at: string })[]>`
      SELECT ${db(CAMPAIGN_COLUMNS)}, created_at::text AS sort_at FROM campaign.campaigns
      WHERE ${where} ${after}
      ORDER BY created_at DESC, id DESC LIMIT ${start.limit} OFFSET ${start.offset}`;
    const page = pageEnd(rows, start, query.page_size, (r) => [r.sort_at, r.id]);
    const extent = await pageExtent(db, db`campaign.campaigns WHERE ${where}`, start, page);
    return { rows: page.rows, extent };
  },

  /**
   * Running campaigns with a contact due at `now` (the service's clock) for a dial (they may still
   * be at their cap). Each test reads one entry of a partial index (migration 006): contacts
   * waiting for a later time are not read.
   */
  async dispatchable(db: Db, limit: number, now: Date): Promise<string[]> {
    const rows = await db<{ id: string }[]>`
      SELECT c.id FROM campaign.campaigns c
      WHERE c.status = 'running' AND (
        EXISTS (
          SELECT 1 FROM campaign.contacts k
          WHERE k.campaign_id = c.id AND k.state = 'pending' AND k.next_attempt_at IS NULL)
        OR EXISTS (
          SELECT 1 FROM campaign.contacts k
          WHERE k.campaign_id = c.id AND k.state = 'pending' AND k.next_attempt_at <= ${now}))
      ORDER BY c.created_at LIMIT ${limit}`;
    return rows.map((r) => r.id);
  },

  /** Running campaigns none of whose contacts is pending or in progress. */
  async runningWithNothingOpen(db: Db, limit: number): Promise<string[]> {
    const rows = await db<{ id: string }[]>`
      SELECT c.id FROM campaign.campaigns c
      WHERE c.status = 'running' AND NOT EXISTS (
        SELECT 1 FROM campaign.contacts k
        WHERE k.campaign_id = c.id AND k.state IN ('pending', 'in_progress'))
      ORDER BY c.created_at LIMIT ${limit}`;
    return rows.map((r) => r.id);
  },

  /** Scheduled campaigns whose start_at has come by `now` (the service's clock), locked (other replicas skip them). */
  async lockDueScheduled(tx: TransactionSql, limit: number, now: Date): Promise<CampaignRow[]> {
    return tx<CampaignRow[]>`
      SELECT * FROM campaign.campaigns WHERE status = 'scheduled' AND start_at <= ${now}
      ORDER BY start_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
  },

  /** Drafts older than `maxAgeMs`: creates whose gateway died mid-upload. Their contacts cascade. */
  async sweepDrafts(db: Db, maxAgeMs: number): Promise<number> {
    const rows = await db`
      DELETE FROM campaign.campaigns
      WHERE status = 'draft' AND created_at < now() - make_interval(secs => ${maxAgeMs / 1000})
      RETURNING 1`;
    return rows.length;
  },
};
