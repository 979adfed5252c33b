import { randomUUID } from 'node:crypto';
import {
  AGENT,
  AppError,
  type Bus,
  type Call,
  type CallContext,
  type Campaign,
  type CampaignContact,
  type CampaignSettings,
  type CampaignStatus,
  type Clock,
  CONTACTS_MAX,
  type ContactRow,
  type ContactState,
  callRpc,
  type PageOf,
  type PageQuery,
  pageStart,
  requireAccount,
  type SkipReason,
  type Sql,
  type TransactionSql,
  toPage,
  transaction,
} from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import {
  type CampaignRow,
  type ContactRowDb,
  storedCounts,
  toCampaign,
  toContact,
} from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { decideAfterCall } from '../domain/attempts';
import { classifyContact } from '../domain/contacts';
import { listedTotal } from '../domain/counts';
import { moveFor, type Operation } from '../domain/lifecycle';
import { prepareStep } from './preparation';
import { afterChange } from './progress';
import { recordExhausted } from './webhook-events';

export interface CampaignsOptions {
  sql: Sql;
  bus: Bus;
  /** A campaign may have become dialable (started, resumed, a slot freed): dispatch now. */
  onRunnable: () => void;
  /** The time a retry's due time counts from (tests move it). */
  clock: Clock;
}

const notFound = () => new AppError('CAMPAIGN_NOT_FOUND');
const startedAlready = () => new AppError('INVALID_STATE', 'The campaign has started already');

/** Campaigns of every account: the staged create, reads, and the operations the API documents. */
export class CampaignsApp {
  constructor(private readonly options: CampaignsOptions) {}

  /** Step 1 of a create: the campaign as a draft, after checking the agent is the account's. */
  async createDraft(ctx: CallContext, settings: CampaignSettings): Promise<{ campaign_id: string }> {
    const accountId = requireAccount(ctx);
    // The same refusal as POST /v1/call: another account's agent is AGENT_NOT_FOUND (404).
    await callRpc(this.options.bus, AGENT.get, { agent_id: settings.agent_id }, ctx);
    const id = randomUUID();
    await campaignRepository.insertDraft(this.options.sql, accountId, id, settings);
    return { campaign_id: id };
  }

  /** Step 2: one chunk of contacts, classified (missing or invalid numbers are skipped). */
  async addContacts(
    accountId: string,
    request: { campaign_id: string; offset: number; contacts: ContactRow[] },
  ): Promise<{ stored: number }> {
    const draft = await this.requireDraft(accountId, request.campaign_id);
    if (request.offset + request.contacts.length > CONTACTS_MAX) {
      throw AppError.validation([
        { loc: ['body', 'contacts'], msg: `at most ${CONTACTS_MAX} contacts`, type: 'too_big' },
      ]);
    }
    const classified = request.contacts.map((row) => classifyContact(row, draft.phone_column));
    await transaction(this.options.sql, async (tx) => {
      const stored = await contactRepository.insertChunk(tx, draft.id, request.offset, classified);
      if (!(await campaignRepository.addReceived(tx, draft.id, stored))) throw startedAlready();
    });
    return { stored: classified.length };
  }

  /**
   * Step 3: checks every contact arrived (the count the chunks kept, and the last position: no
   * scan), then takes the first step of its preparation (preparation.ts), all in bounded work
   * whatever the list's length. A list of one step is scheduled or running when this answers; a
   * longer one is `preparing`, and the dispatcher's loop takes the other steps. Repeatable: a
   * campaign past its draft is answered as it is.
   */
  async start(accountId: string, campaignId: string, total: number): Promise<Campaign> {
    const row = await transaction(this.options.sql, async (tx) => {
      const draft = await campaignRepository.lock(tx, accountId, campaignId);
      if (!draft) throw notFound();
      if (draft.status !== 'draft') return draft;
      const received = storedCounts(draft).total;
      const last = await contactRepository.lastPosition(tx, campaignId);
      if (received !== total || last !== total - 1) {
        throw new AppError(
          'BAD_REQUEST',
          `Expected ${total} contacts at positions 0..${total - 1}, received ${received}`,
        );
      }
      const preparing = await campaignRepository.update(tx, campaignId, {
        status: 'preparing',
        prepared_through: 0,
      });
      return prepareStep(tx, preparing);
    });
    this.options.onRunnable();
    return toCampaign(row);
  }

  /** A create that failed midway: its draft goes now rather than at the sweep. A started campaign stays. */
  async discard(accountId: string, campaignId: string): Promise<{ discarded: boolean }> {
    return { discarded: await campaignRepository.deleteDraft(this.options.sql, accountId, campaignId) };
  }

  async get(accountId: string, campaignId: string): Promise<Campaign> {
    return toCampaign(await this.requireListed(accountId, campaignId));
  }

  async list(
    accountId: string,
    status: CampaignStatus | undefined,
    query: PageQuery,
  ): Promise<PageOf<Campaign>> {
    const { rows, extent } = await campaignRepository.page(this.options.sql, accountId, status, query);
    return toPage(rows.map(toCampaign), extent, query);
  }

  /**
   * A page of the campaign's contacts, by position. The total is the campaign's own count of the
   * contacts listed (kept with every change of them): exact, and read with the campaign, not counted.
   */
  async listContacts(
    accountId: string,
    campaignId: string,
    state: ContactState | undefined,
    query: PageQuery,
  ): Promise<PageOf<CampaignContact>> {
    const start = pageStart(query, ['number'], 'campaign_contacts');
    const campaign = await this.requireListed(accountId, campaignId);
    const page = await contactRepository.page(this.options.sql, campaignId, state, start, query.page_size);
    const total = listedTotal(storedCounts(campaign), state, {
      page: start.page,
      pageSize: query.page_size,
      shown: page.rows.length,
    });
    return toPage(
      page.rows.map(toContact),
      { total, totalExact: true, page: start.page, nextCursor: page.nextCursor },
      query,
    );
  }

  /** Pause, resume or cancel; a move the campaign states do not allow is a 409 naming the status. */
  async operate(accountId: string, campaignId: string, operation: Operation): Promise<Campaign> {
    const row = await transaction(this.options.sql, async (tx) => {
      const current = await campaignRepository.lock(tx, accountId, campaignId);
      if (!current || current.status === 'draft') throw notFound();
      const move = moveFor(operation, current.status);
      if (!move.allowed) throw new AppError('INVALID_STATE', move.detail);
      const cancelled = operation === 'cancel' ? await contactRepository.cancelPending(tx, campaignId) : 0;
      if (current.status === 'preparing') await contactRepository.forgetNumbers(tx, campaignId);
      const moved = await campaignRepository.update(tx, campaignId, {
        status: move.to,
        ...(operation === 'cancel' ? { finished_at: new Date() } : {}),
      });
      return afterChange(
        tx,
        moved,
        { moved: [{ from: 'pending', to: 'cancelled', n: cancelled }] },
        current.status,
      );
    });
    if (operation === 'resume') this.options.onRunnable();
    return toCampaign(row);
  }

  /**
   * A campaign call ended: its contact takes the outcome, or goes back to pending for a retry.
   * Runs inside the consumer's processOnce transaction; false when nothing matched (not in flight).
   * `onLocked` is told when the campaign's row lock was granted (the consumer times how long the
   * lock is then held, the time every other change of the campaign waits for).
   */
  async recordCallEnded(
    tx: TransactionSql,
    accountId: string,
    call: Call,
    onLocked?: () => void,
  ): Promise<boolean> {
    if (!call.campaign_id) return false;
    const outcome = call.status;
    if (outcome === 'initializing' || outcome === 'ringing' || outcome === 'in_progress') return false;
    const found = await this.lockWithContact(tx, accountId, call.campaign_id, call.id);
    if (!found) return false;
    onLocked?.();
    const { campaign, contact } = found;
    const decision = decideAfterCall({
      outcome,
      attempts: contact.attempts,
      retry: campaign.retry_config,
      campaignStatus: campaign.status,
    });
    await Promise.all([
      this.endAttempt(tx, found, {
        state: decision.state,
        nextAttemptAt:
          decision.outcome === 'retry'
            ? new Date(this.options.clock.now().getTime() + decision.delayMs)
            : null,
      }),
      decision.outcome === 'final' ? recordExhausted(tx, campaign, contact, outcome) : undefined,
    ]);
    return true;
  }

  /**
   * A placement the call service refused for good: the contact fails, its slot is free again, and
   * the attempt is taken back (no call was placed; its id would name no call).
   */
  async failAttempt(accountId: string, campaignId: string, callId: string, reason: string): Promise<boolean> {
    const failed = await transaction(this.options.sql, async (tx) => {
      const found = await this.lockWithContact(tx, accountId, campaignId, callId);
      if (!found) return false;
      await this.endAttempt(tx, found, {
        state: 'failed',
        nextAttemptAt: null,
        failureReason: reason,
        refusedCallId: callId,
      });
      return true;
    });
    if (failed) this.options.onRunnable();
    return failed;
  }

  /**
   * A placement the call service refused for a reason that skips the contact (its number is on the
   * do-not-call list): the contact is skipped, not failed, and its slot is free again.
   */
  async skipAttempt(
    accountId: string,
    campaignId: string,
    callId: string,
    reason: SkipReason,
  ): Promise<boolean> {
    const skipped = await transaction(this.options.sql, async (tx) => {
      const found = await this.lockWithContact(tx, accountId, campaignId, callId);
      if (!found) return false;
      await this.endAttempt(tx, found, {
        state: 'skipped',
        nextAttemptAt: null,
        skipReason: reason,
        refusedCallId: callId,
      });
      return true;
    });
    if (skipped) this.options.onRunnable();
    return skipped;
  }

  /**
   * Ends the in-flight contact's attempt and moves the campaign's counts by it (in progress to its
   * new state); both statements go out together, under the lock lockWithContact took.
   */
  private async endAttempt(
    tx: TransactionSql,
    { campaign, contact }: { campaign: CampaignRow; contact: ContactRowDb },
    change: Parameters<typeof contactRepository.endAttempt>[3],
  ): Promise<void> {
    await Promise.all([
      contactRepository.endAttempt(tx, campaign.id, contact.position, change),
      afterChange(tx, campaign, { moved: [{ from: 'in_progress', to: change.state, n: 1 }] }),
    ]);
  }

  /**
   * The account's campaign, locked, with the contact whose call `callId` is in flight. Both
   * statements go out together (the contact is read once the lock is held, as they run in order):
   * one round trip, where every CALL_ENDED of the campaign queues for this lock.
   */
  private async lockWithContact(
    tx: TransactionSql,
    accountId: string,
    campaignId: string,
    callId: string,
  ): Promise<{ campaign: CampaignRow; contact: ContactRowDb } | undefined> {
    const [campaign, contact] = await Promise.all([
      campaignRepository.lock(tx, accountId, campaignId),
      contactRepository.findInFlight(tx, campaignId, callId),
    ]);
    return campaign && contact ? { campaign, contact } : undefined;
  }

  private async requireDraft(accountId: string, campaignId: string): Promise<CampaignRow> {
    const row = await campaignRepository.find(this.options.sql, accountId, campaignId);
    if (!row) throw notFound();
    if (row.status !== 'draft') throw startedAlready();
    return row;
  }

  /** The account's campaign as clients may see it (never a draft). */
  private async requireListed(accountId: string, campaignId: string): Promise<CampaignRow> {
    const row = await campaignRepository.find(this.options.sql, accountId, campaignId);
    if (!row || row.status === 'draft') throw notFound();
    return row;
  }
}
