import { EVENTS, enqueueEvent, eventSubject, type TransactionSql } from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, countsFrom, toCampaign } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { completesWhenIdle } from '../domain/lifecycle';

/**
 * To be called, under the campaign's row lock, by every transaction that changed the campaign or
 * its contacts: completes a running campaign with nothing left to dial or hear back from,
 * recomputes the counts from the contacts, stores them and records the progress event (outbox),
 * all in that transaction. Returns the campaign as it now is.
 */
export async function afterChange(tx: TransactionSql, row: CampaignRow): Promise<CampaignRow> {
  if (completesWhenIdle(row.status) && !(await contactRepository.hasOpen(tx, row.id))) {
    await campaignRepository.update(tx, row.id, { status: 'completed', finished_at: new Date() });
  }
  const counts = countsFrom(await contactRepository.countsByState(tx, row.id));
  const saved = await campaignRepository.saveProgress(tx, row.id, counts);
  await enqueueEvent(tx, 'campaign', {
    subject: eventSubject(EVENTS.campaignProgress, saved.account_id, saved.id),
    accountId: saved.account_id,
    data: { campaign: toCampaign(saved), sequence: saved.sequence },
  });
  return saved;
}
