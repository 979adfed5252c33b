import {
  AppError,
  type Campaign,
  CONTACTS_MAX,
  type ContactRow,
  type ContactsAdded,
  type Sql,
  transaction,
  type UpdateCampaignBody,
} from '@voice/shared';
import { additionRepository } from '../db/addition-repository';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, storedCounts, toCampaign } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { classifyContact } from '../domain/contacts';
import { duplicatePositions } from '../domain/counts';
import { refusedChange } from '../domain/lifecycle';
import { afterChange } from './progress';

export interface ControlOptions {
  sql: Sql;
  /** The dispatcher may have more to dial (a raised cap, contacts added): dispatch now. */
  onRunnable: () => void;
}

const notFound = () => new AppError('CAMPAIGN_NOT_FOUND');
const tooMany = (total: number) =>
  AppError.validation([
    {
      loc: ['body', 'contacts'],
      msg: `the campaign would hold more than ${CONTACTS_MAX} contacts (it holds ${total})`,
      type: 'too_big',
    },
  ]);

/**
 * Live control of a campaign that has not finished: its settings changed (PATCH), contacts added.
 * Each change runs under the campaign's row lock, like every other change of it, and publishes
 * progress, so live subscriptions see it.
 */
export class CampaignControl {
  constructor(private readonly options: ControlOptions) {}

  /**
   * Name, cap and retry rules. The dispatcher reads the cap under the same lock at each claim, so a
   * lower cap only holds back new dials (calls in flight end on their own); a higher one is used at
   * the next claim, which the wake makes immediate. Retry rules are read when an outcome is
   * recorded: a contact already waiting for its retry keeps its time. A new calling window (or
   * none) makes the contacts waiting for the old one's opening due again, in this transaction, to
   * be judged by the new one at the next claim: a retry no earlier than its backoff allows.
   */
  async update(accountId: string, campaignId: string, changes: UpdateCampaignBody): Promise<Campaign> {
    const row = await transaction(this.options.sql, async (tx) => {
      const current = await campaignRepository.lock(tx, accountId, campaignId);
      const open = requireOpen(current, 'change');
      const changed = await campaignRepository.changeSettings(tx, open.id, changes);
      if (changes.calling_window !== undefined) await contactRepository.rejudgeWindowWaits(tx, open.id);
      return afterChange(tx, changed, { moved: [] });
    });
    if (changes.max_concurrent_calls !== undefined || changes.calling_window !== undefined) {
      this.options.onRunnable();
    }
    return toCampaign(row);
  }

  /**
   * One chunk of an addition, held apart from the campaign's contacts. Refuses early what the
   * commit would (a finished campaign, too many contacts), so a large upload stops at once.
   */
  async stageContacts(
    accountId: string,
    request: { campaign_id: string; addition_id: string; offset: number; contacts: ContactRow[] },
  ): Promise<{ stored: number }> {
    const campaign = requireOpen(
      await campaignRepository.find(this.options.sql, accountId, request.campaign_id),
      'add contacts to',
    );
    const total = storedCounts(campaign).total;
    if (total + request.offset + request.contacts.length > CONTACTS_MAX) throw tooMany(total);
    const classified = request.contacts.map((row) => classifyContact(row, campaign.phone_column));
    await additionRepository.insertChunk(
      this.options.sql,
      campaign.id,
      request.addition_id,
      request.offset,
      classified,
    );
    return { stored: classified.length };
  }

  /**
   * The last step of an addition: checks every chunk arrived, marks the contacts whose number the
   * campaign holds already (or that came earlier in the addition) duplicates, and moves them all
   * into the campaign after its last position, the counts moving by what joined, in one
   * transaction: the whole addition, or (over the limit, or a chunk missing) none of it.
   *
   * The numbers are compared here, in a Set, rather than by a join whose plan the table's
   * statistics choose: linear in the campaign's contacts whatever the planner believes.
   */
  async commitContacts(
    accountId: string,
    request: { campaign_id: string; addition_id: string; total: number },
  ): Promise<ContactsAdded> {
    const { addition_id: additionId, total } = request;
    const result = await transaction(this.options.sql, async (tx) => {
      const campaign = requireOpen(
        await campaignRepository.lock(tx, accountId, request.campaign_id),
        'add contacts to',
      );
      const [extent, last] = await Promise.all([
        additionRepository.extent(tx, campaign.id, additionId),
        contactRepository.lastPosition(tx, campaign.id),
      ]);
      if (extent.received !== total || extent.last !== total - 1) {
        throw new AppError(
          'BAD_REQUEST',
          `Expected ${total} contacts at positions 0..${total - 1}, received ${extent.received}`,
        );
      }
      const held = storedCounts(campaign).total;
      if (held + total > CONTACTS_MAX) throw tooMany(held);
      const [existing, dialable] = await Promise.all([
        contactRepository.numbers(tx, campaign.id),
        additionRepository.dialable(tx, additionId),
      ]);
      await additionRepository.markDuplicates(tx, additionId, duplicatePositions(existing, dialable));
      const stored = await additionRepository.commit(tx, campaign.id, additionId, (last ?? -1) + 1);
      const skipped = stored.missing_phone + stored.invalid_phone + stored.duplicate;
      const saved = await afterChange(tx, campaign, {
        moved: [],
        added: { pending: stored.pending, skipped },
      });
      return {
        received: total,
        added: stored.pending,
        skipped: {
          missing_phone: stored.missing_phone,
          invalid_phone: stored.invalid_phone,
          duplicate: stored.duplicate,
        },
        campaign: toCampaign(saved),
      };
    });
    if (result.added > 0) this.options.onRunnable();
    return result;
  }

  /**
   * An addition that failed midway: its chunks go now rather than at the sweep. Under the campaign's
   * lock, so a commit still running (its caller timed out) finishes first, whole, or finds its
   * chunks gone and adds nothing.
   */
  async discardContacts(
    accountId: string,
    request: { campaign_id: string; addition_id: string },
  ): Promise<{ discarded: number }> {
    return transaction(this.options.sql, async (tx) => {
      const campaign = await campaignRepository.lock(tx, accountId, request.campaign_id);
      if (!campaign) return { discarded: 0 };
      return { discarded: await additionRepository.discard(tx, campaign.id, request.addition_id) };
    });
  }
}

/** The account's campaign if it may still change: 404 when there is none (or a draft), 409 when it finished. */
function requireOpen(
  row: CampaignRow | undefined,
  action: 'change' | 'add contacts to',
): CampaignRow & { status: Campaign['status'] } {
  if (!row || row.status === 'draft') throw notFound();
  const refused = refusedChange(action, row.status);
  if (refused) throw new AppError('INVALID_STATE', refused);
  return row as CampaignRow & { status: Campaign['status'] };
}
