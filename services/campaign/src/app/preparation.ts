import { type Sql, type TransactionSql, transaction } from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, storedCounts } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { initialStatus, nextPreparationStep } from '../domain/lifecycle';
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
    ...(status ? { status, started_at: status === 'running' ? now : null } : {}),
  });
  return afterChange(tx, stepped, { moved: [{ from: 'pending', to: 'skipped', n: duplicates }] });
}

/**
 * The background half of preparation: one step of each preparing campaign (up to `limit`), each in
 * its own transaction, so a long list never holds its lock, or the loop, for long. A campaign
 * another replica is stepping is left to it. True when one this call stepped is still preparing.
 */
export async function prepareDue(sql: Sql, limit: number): Promise<boolean> {
  let unfinished = false;
  for (const id of await campaignRepository.preparing(sql, limit)) {
    const stepped = await transaction(sql, async (tx) => {
      const row = await campaignRepository.lockPreparing(tx, id);
      return row && prepareStep(tx, row);
    });
    if (stepped?.status === 'preparing') unfinished = true;
  }
  return unfinished;
}
