import { type Logger, type Sql, type TransactionSql, transaction } from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, storedCounts } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import {
  initialStatus,
  isLastingFailure,
  nextPreparationStep,
  PREPARATION_ATTEMPTS,
  preparationFailureReason,
} from '../domain/lifecycle';
import { afterChange } from './progress';

/**
 * One step of a preparing campaign's preparation, under its row lock (taken by `row`'s read): the
 * next PREPARE_BATCH contacts by position are checked for duplicates, and after the last step the
 * campaign is scheduled or running (which completes it at once if no contact is dialable). The
 * counts move by the duplicates found; every step publishes progress. Returns the campaign as it
 * now is.
 */
export async function prepareStep(tx: TransactionSql, row: CampaignRow): Promise<CampaignRow> {
  const step = nextPreparationStep(row.prepared_through, storedCounts(row).total);
  const duplicates = await contactRepository.skipDuplicates(tx, row.id, step.from, step.to);
  const now = new Date();
  const status = step.last ? initialStatus(row.start_at, now) : undefined;
  if (step.last) await contactRepository.forgetNumbers(tx, row.id);
  const stepped = await campaignRepository.update(tx, row.id, {
    prepared_through: step.to,
    ...(row.preparation_failures > 0 ? { preparation_failures: 0 } : {}),
    ...(status ? { status, started_at: status === 'running' ? now : null } : {}),
  });
  return afterChange(tx, stepped, { moved: [{ from: 'pending', to: 'skipped', n: duplicates }] }, row.status);
}

/**
 * The background half of preparation: one step of each preparing campaign (up to `limit`), each in
 * its own transaction, so a long list never holds its lock, or the loop, for long. A campaign
 * another replica is stepping is left to it. A step that fails is logged and taken again next
 * round; one that fails PREPARATION_ATTEMPTS times in a row with an error a retry meets again
 * fails the preparation (failPreparation). True when one this call stepped is still preparing.
 */
export async function prepareDue(sql: Sql, limit: number, log: Logger): Promise<boolean> {
  let unfinished = false;
  for (const id of await campaignRepository.preparing(sql, limit)) {
    try {
      const stepped = await transaction(sql, async (tx) => {
        const row = await campaignRepository.lockPreparing(tx, id);
        return row && prepareStep(tx, row);
      });
      if (stepped?.status === 'preparing') unfinished = true;
    } catch (error) {
      const sqlState = sqlStateOf(error);
      log.warn({ err: error, campaign_id: id, sql_state: sqlState }, 'a campaign preparation step failed');
      if (sqlState && isLastingFailure(sqlState)) {
        const failed = await failPreparation(sql, id, sqlState).catch((failure: unknown) => {
          log.warn({ err: failure, campaign_id: id }, 'could not record a failed preparation step');
          return false;
        });
        if (failed) log.error({ campaign_id: id, sql_state: sqlState }, 'campaign preparation failed');
      }
    }
  }
  return unfinished;
}

/**
 * Counts a lasting failure of a preparing campaign's step; at PREPARATION_ATTEMPTS the campaign is
 * cancelled with a failure_reason clients see (its contacts not dialed cancelled, its numbers
 * forgotten, progress published), so a preparation never stays `preparing` for good or vanishes.
 * True when this failed it.
 */
async function failPreparation(sql: Sql, id: string, sqlState: string): Promise<boolean> {
  return transaction(sql, async (tx) => {
    const row = await campaignRepository.lockPreparing(tx, id);
    if (!row) return false;
    const failures = row.preparation_failures + 1;
    if (failures < PREPARATION_ATTEMPTS) {
      await campaignRepository.update(tx, id, { preparation_failures: failures });
      return false;
    }
    const cancelled = await contactRepository.cancelPending(tx, id);
    await contactRepository.forgetNumbers(tx, id);
    const failed = await campaignRepository.update(tx, id, {
      status: 'cancelled',
      finished_at: new Date(),
      preparation_failures: failures,
      failure_reason: preparationFailureReason(sqlState),
    });
    await afterChange(
      tx,
      failed,
      { moved: [{ from: 'pending', to: 'cancelled', n: cancelled }] },
      row.status,
    );
    return true;
  });
}

/** The SQLSTATE of an error PostgreSQL answered; undefined for any other (a connection that broke). */
function sqlStateOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'PostgresError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
