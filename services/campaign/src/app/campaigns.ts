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
  CONTACTS_MAX,
  type ContactRow,
  type ContactState,
  callRpc,
  type PageOf,
  type PageQuery,
  requireAccount,
  type Sql,
  type TransactionSql,
  toPage,
  transaction,
} from '@voice/shared';
import { campaignRepository } from '../db/campaign-repository';
import { type CampaignRow, type ContactRowDb, toCampaign, toContact } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { decideAfterCall } from '../domain/attempts';
import { classifyContact } from '../domain/contacts';
import { initialStatus, moveFor, type Operation } from '../domain/lifecycle';
import { afterChange } from './progress';

export interface CampaignsOptions {
  sql: Sql;
  bus: Bus;
  /** A campaign may have become dialable (started, resumed, a slot freed): dispatch now. */
  onRunnable: () => void;
}

const notFound = () => new AppError('CAMPAIGN_NOT_FOUND');

/** Campaigns of every account: the staged create, reads, and the operations of decisions.md. */
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
    await contactRepository.insertChunk(this.options.sql, draft.id, request.offset, classified);
    return { stored: classified.length };
  }

  /** Step 3: duplicates skipped, scheduled or running, first progress event. Repeatable. */
  async start(accountId: string, campaignId: string, total: number): Promise<Campaign> {
    const row = await transaction(this.options.sql, async (tx) => {
      const draft = await campaignRepository.lock(tx, accountId, campaignId);
      if (!draft) throw notFound();
      if (draft.status !== 'draft') return draft;
      const received = await contactRepository.count(tx, campaignId);
      if (received !== total) {
        throw new AppError('BAD_REQUEST', `Expected ${total} contacts, received ${received}`);
      }
      await contactRepository.skipDuplicates(tx, campaignId);
      const now = new Date();
      const status = initialStatus(draft.start_at, now);
      const started = await campaignRepository.update(tx, campaignId, {
        status,
        started_at: status === 'running' ? now : null,
      });
      return afterChange(tx, started, { recount: true });
    });
    this.options.onRunnable();
    return toCampaign(row);
  }

  async get(accountId: string, campaignId: string): Promise<Campaign> {
    return toCampaign(await this.requireListed(accountId, campaignId));
  }

  async list(
    accountId: string,
    status: CampaignStatus | undefined,
    page: PageQuery,
  ): Promise<PageOf<Campaign>> {
    const { rows, total } = await campaignRepository.page(this.options.sql, accountId, status, page);
    return toPage(rows.map(toCampaign), total, page);
  }

  async listContacts(
    accountId: string,
    campaignId: string,
    state: ContactState | undefined,
    page: PageQuery,
  ): Promise<PageOf<CampaignContact>> {
    await this.requireListed(accountId, campaignId);
    const { rows, total } = await contactRepository.page(this.options.sql, campaignId, state, page);
    return toPage(rows.map(toContact), total, page);
  }

  /** Pause, resume or cancel; a move decisions.md does not allow is a 409 naming the status. */
  async operate(accountId: string, campaignId: string, operation: Operation): Promise<Campaign> {
    const row = await transaction(this.options.sql, async (tx) => {
      const current = await campaignRepository.lock(tx, accountId, campaignId);
      if (!current || current.status === 'draft') throw notFound();
      const move = moveFor(operation, current.status);
      if (!move.allowed) throw new AppError('INVALID_STATE', move.detail);
      if (operation === 'cancel') await contactRepository.cancelPending(tx, campaignId);
      const moved = await campaignRepository.update(tx, campaignId, {
        status: move.to,
        ...(operation === 'cancel' ? { finished_at: new Date() } : {}),
      });
      return afterChange(tx, moved, { recount: true });
    });
    if (operation === 'resume') this.options.onRunnable();
    return toCampaign(row);
  }

  /**
   * A campaign call ended: its contact takes the outcome, or goes back to pending for a retry.
   * Runs inside the consumer's processOnce transaction; false when nothing matched (not in flight).
   */
  async recordCallEnded(tx: TransactionSql, accountId: string, call: Call): Promise<boolean> {
    if (!call.campaign_id) return false;
    const outcome = call.status;
    if (outcome === 'initializing' || outcome === 'ringing' || outcome === 'in_progress') return false;
    const found = await this.lockWithContact(tx, accountId, call.campaign_id, call.id);
    if (!found) return false;
    const { campaign, contact } = found;
    const decision = decideAfterCall({
      outcome,
      attempts: contact.attempts,
      retry: campaign.retry_config,
      campaignStatus: campaign.status,
    });
    await this.endAttempt(tx, found, {
      state: decision.state,
      nextAttemptAt: decision.outcome === 'retry' ? new Date(Date.now() + decision.delayMs) : null,
    });
    return true;
  }

  /** A placement the call service refused for good: the contact fails, its slot is free again. */
  async failAttempt(accountId: string, campaignId: string, callId: string, reason: string): Promise<boolean> {
    const failed = await transaction(this.options.sql, async (tx) => {
      const found = await this.lockWithContact(tx, accountId, campaignId, callId);
      if (!found) return false;
      await this.endAttempt(tx, found, { state: 'failed', nextAttemptAt: null, failureReason: reason });
      return true;
    });
    if (failed) this.options.onRunnable();
    return failed;
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
    if (row.status !== 'draft') throw new AppError('INVALID_STATE', 'The campaign has started already');
    return row;
  }

  /** The account's campaign as clients may see it (never a draft). */
  private async requireListed(accountId: string, campaignId: string): Promise<CampaignRow> {
    const row = await campaignRepository.find(this.options.sql, accountId, campaignId);
    if (!row || row.status === 'draft') throw notFound();
    return row;
  }
}
