import type { Sql, TransactionSql } from '@voice/shared';
import type { ClassifiedContact } from '../domain/contacts';

type Db = Sql | TransactionSql;

/** What a committed addition stored, by state and skip reason. */
export interface AdditionStored {
  pending: number;
  missing_phone: number;
  invalid_phone: number;
  duplicate: number;
}

/**
 * The contact_additions table: contacts added to a started campaign, held apart until their
 * addition is committed (moved into campaign.contacts in one statement) or discarded.
 */
export const additionRepository = {
  /** One chunk, in one statement; a chunk sent again changes nothing (same positions). */
  async insertChunk(
    db: Db,
    campaignId: string,
    additionId: string,
    offset: number,
    contacts: readonly ClassifiedContact[],
  ): Promise<void> {
    const rows = contacts.map((c, i) => ({
      position: offset + i,
      phone_number: c.phone_number,
      data: c.data,
      skip_reason: c.skip_reason,
    }));
    await db`
      INSERT INTO campaign.contact_additions (addition_id, campaign_id, position, phone_number, data, skip_reason)
      SELECT ${additionId}, ${campaignId}, r.position, r.phone_number, r.data, r.skip_reason
      FROM jsonb_to_recordset(${db.json(rows as never)})
        AS r(position integer, phone_number text, data jsonb, skip_reason text)
      ON CONFLICT (addition_id, position) DO NOTHING`;
  },

  /** How many contacts of the addition arrived, and its highest position (no chunk missing when total - 1). */
  async extent(
    db: Db,
    campaignId: string,
    additionId: string,
  ): Promise<{ received: number; last: number | null }> {
    const [row] = await db<{ received: number; last: number | null }[]>`
      SELECT count(*)::int AS received, max(position) AS last FROM campaign.contact_additions
      WHERE addition_id = ${additionId} AND campaign_id = ${campaignId}`;
    return row ?? { received: 0, last: null };
  },

  /** The addition's contacts with a dialable number, in position order. */
  async dialable(
    tx: TransactionSql,
    additionId: string,
  ): Promise<{ position: number; phone_number: string }[]> {
    return tx<{ position: number; phone_number: string }[]>`
      SELECT position, phone_number FROM campaign.contact_additions
      WHERE addition_id = ${additionId} AND skip_reason IS NULL ORDER BY position`;
  },

  /** Marks these positions of the addition duplicates (index probes on its key, one per position). */
  async markDuplicates(tx: TransactionSql, additionId: string, positions: readonly number[]): Promise<void> {
    if (positions.length === 0) return;
    await tx`
      UPDATE campaign.contact_additions SET skip_reason = 'duplicate'
      WHERE addition_id = ${additionId} AND position = ANY(${positions as number[]}::int[])`;
  },

  /**
   * Moves the addition into the campaign's contacts at `base` + its positions (pending, or skipped
   * with its reason), in one statement, and answers what it stored.
   */
  async commit(
    tx: TransactionSql,
    campaignId: string,
    additionId: string,
    base: number,
  ): Promise<AdditionStored> {
    const [stored] = await tx<AdditionStored[]>`
      WITH moved AS (
        DELETE FROM campaign.contact_additions WHERE addition_id = ${additionId} AND campaign_id = ${campaignId}
        RETURNING position, phone_number, data, skip_reason),
      inserted AS (
        INSERT INTO campaign.contacts (campaign_id, position, phone_number, data, state, skip_reason)
        SELECT ${campaignId}, ${base} + position, phone_number, data,
          CASE WHEN skip_reason IS NULL THEN 'pending' ELSE 'skipped' END, skip_reason
        FROM moved
        RETURNING state, skip_reason)
      SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending,
             count(*) FILTER (WHERE skip_reason = 'missing_phone')::int AS missing_phone,
             count(*) FILTER (WHERE skip_reason = 'invalid_phone')::int AS invalid_phone,
             count(*) FILTER (WHERE skip_reason = 'duplicate')::int AS duplicate
      FROM inserted`;
    return stored!;
  },

  async discard(db: Db, campaignId: string, additionId: string): Promise<number> {
    const deleted = await db`
      DELETE FROM campaign.contact_additions WHERE addition_id = ${additionId} AND campaign_id = ${campaignId}`;
    return deleted.count;
  },

  /** Additions older than `maxAgeMs`: their gateway died before committing them. */
  async sweep(db: Db, maxAgeMs: number): Promise<number> {
    const deleted = await db`
      DELETE FROM campaign.contact_additions
      WHERE created_at < now() - make_interval(secs => ${maxAgeMs / 1000})`;
    return deleted.count;
  },
};
