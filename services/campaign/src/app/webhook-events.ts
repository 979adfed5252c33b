import { type CallOutcome, EVENTS, enqueueEvent, eventSubject, type TransactionSql } from '@voice/shared';
import { type CampaignRow, type ContactRowDb, toCampaign, toContact } from '../db/campaign-rows';
import type { StoredStatus } from '../domain/lifecycle';
import { lifecycleEventOf, retriesExhausted } from '../domain/webhook-events';

/**
 * The campaign's durable events for account webhook endpoints (CAMPAIGN_EVENTS), each written to
 * the campaign outbox in the transaction of the change it reports, so it exists if and only if
 * the change committed: the lifecycle moves (started, paused, resumed, completed, cancelled) and
 * the contacts whose retries are spent. Progress events stay live (progress.ts).
 */

/** Records the lifecycle event of the move `from` -> `to` of `saved` (the campaign as it now is), if it is one. */
export async function recordLifecycle(
  tx: TransactionSql,
  from: StoredStatus,
  saved: CampaignRow,
  to: CampaignRow['status'] = saved.status,
): Promise<void> {
  if (to === 'draft') return;
  const event = lifecycleEventOf(from, to);
  if (!event) return;
  await enqueueEvent(tx, 'campaign', {
    subject: eventSubject(EVENTS.campaignLifecycle, saved.account_id, saved.id),
    accountId: saved.account_id,
    data: { event, campaign: toCampaign(saved) },
  });
}

/**
 * Records CONTACT_EXHAUSTED when the attempt that just ended was the contact's last allowed one
 * and ended with an outcome its campaign retries. `contact` is as read before the attempt ended;
 * the event carries it as it is after (its final state).
 */
export async function recordExhausted(
  tx: TransactionSql,
  campaign: CampaignRow,
  contact: ContactRowDb,
  outcome: CallOutcome,
): Promise<void> {
  if (!retriesExhausted({ outcome, attempts: contact.attempts, retry: campaign.retry_config })) return;
  await enqueueEvent(tx, 'campaign', {
    subject: eventSubject(EVENTS.contactExhausted, campaign.account_id, contact.id),
    accountId: campaign.account_id,
    data: {
      campaign_id: campaign.id,
      contact: toContact({ ...contact, state: outcome, next_attempt_at: null, updated_at: new Date() }),
    },
  });
}
