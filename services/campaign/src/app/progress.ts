import { EVENTS, enqueueEvent, eventSubject, type TransactionSql } from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, countsFrom, toCampaign } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { completesWhenIdle } from '../domain/lifecycle';

/**
 * To be called, under the campaign's row lock, by every transaction that changed the campaign or
 * its contacts: recomputes the counts from the contacts, completes a running campaign with nothing
 * left to dial or hear back from (no contact pending or in progress), stores both and records the
 * progress event (outbox), all in that transaction. Returns the campaign as it now is.
 *
 * Every CALL_ENDED of a campaign waits for this lock, so its statements are kept few: the counts
 * tell whether anything is open, and one UPDATE stores counts and completion together.
 */
export async function afterChange(tx: TransactionSql, row: CampaignRow): Promise<CampaignRow> {
  const counts = countsFrom(await contactRepository.countsByState(tx, row.id));
  const idle = counts.pending + counts.in_progress === 0;
  const completedAt = completesWhenIdle(row.status) && idle ? new Date() : null;
  const saved = await campaignRepository.saveProgress(tx, row.id, counts, completedAt);
  await enqueueEvent(tx, 'campaign', {
    subject: eventSubject(EVENTS.campaignProgress, saved.account_id, saved.id),
    accountId: saved.account_id,
    data: { campaign: toCampaign(saved), sequence: saved.sequence },
  });
  return saved;
}
