import { randomUUID } from 'node:crypto';
import {
  AppError,
  type Bus,
  CALL,
  type CallingWindow,
  type Clock,
  callRpc,
  type Logger,
  PollWorker,
  type Sql,
  type TransactionSql,
  transaction,
} from '@voice/shared';
import { additionRepository } from '../db/addition-repository';
import { campaignRepository } from '../db/campaign-repository';
import type { ContactRowDb } from '../db/campaign-rows';
import { contactRepository } from '../db/contact-repository';
import { afterPlacementError } from '../domain/attempts';
import { gateByWindow } from '../domain/window-gate';
import type { CampaignsApp } from './campaigns';
import type { CampaignMetrics } from './metrics';
import { prepareDue } from './preparation';
import { afterChange } from './progress';

export interface DispatcherOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  campaigns: CampaignsApp;
  /** Fallback look for due work: scheduled starts, retries coming due, wakes another replica got. */
  pollIntervalMs: number;
  /** An unconfirmed placement is re-sent (same call id: never a second dial) after this long. */
  placementLeaseMs: number;
  /** Drafts older than this were abandoned mid-upload and are deleted. */
  draftMaxAgeMs: number;
  metrics?: CampaignMetrics | undefined;
  /** The time due contacts and calling windows are judged by (tests move it). */
  clock: Clock;
  /** The zones a number's prefix names (numberZones over the loaded table). */
  zonesOfNumber: (e164: string) => readonly string[];
}

/** Where a claimed contact is dialed from and for whom. */
interface Placement {
  accountId: string;
  campaignId: string;
  agentId: string;
  sourceNumber: string;
  contact: ContactRowDb;
}

const BATCH = 100;
/** Due contacts of a windowed campaign judged per claim: those outside their window are deferred. */
const WINDOW_SCAN = 500;
const SWEEP_EVERY_MS = 60_000;
/** How often running campaigns with nothing left open are looked for (see completeIdle). */
const IDLE_CHECK_EVERY_MS = 5_000;

/**
 * Dials campaign contacts without ever exceeding a campaign's max_concurrent_calls, across any
 * number of replicas. Per campaign, in one transaction: lock the campaign row (SKIP LOCKED, so
 * replicas spread over campaigns and never dispatch the same one at once), count its contacts in
 * progress (the calls not final), claim up to cap minus that many due pending contacts, each with
 * its call id chosen up front. The calls are placed after commit, with those ids: a placement that
 * was not confirmed (crash, timeout) is re-sent after a lease and the call service returns the
 * call it already has, so nobody is dialed twice and no claimed contact is lost.
 */
export class Dispatcher extends PollWorker {
  private lastSweep = 0;
  private lastIdleCheck = 0;

  constructor(private readonly options: DispatcherOptions) {
    // Each step logs its own failure, so a round as a whole never throws.
    super({ intervalMs: options.pollIntervalMs, onError: () => {} });
  }

  protected async round(): Promise<void> {
    await this.step('prepare campaigns', async () => {
      // One step per campaign per round: dispatching goes on between the steps of a long list.
      if (await prepareDue(this.options.sql, BATCH, this.options.log)) this.loop.wake();
    });
    await this.step('start scheduled campaigns', () => this.startDueScheduled());
    await this.step('dispatch', async () => {
      const now = this.options.clock.now();
      for (const id of await campaignRepository.dispatchable(this.options.sql, BATCH, now)) {
        if (this.loop.isStopped) return;
        await this.dispatch(id);
      }
    });
    await this.step('re-send unconfirmed placements', () => this.resendUnplaced());
    if (Date.now() - this.lastIdleCheck >= IDLE_CHECK_EVERY_MS) {
      this.lastIdleCheck = Date.now();
      await this.step('complete idle campaigns', () => this.completeIdle());
    }
    if (Date.now() - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await this.step('sweep abandoned drafts', async () => {
        const swept = await campaignRepository.sweepDrafts(this.options.sql, this.options.draftMaxAgeMs);
        if (swept > 0) this.options.log.info({ swept }, 'deleted abandoned campaign drafts');
        // Contacts of additions never committed (their gateway died midway), as old as a draft.
        const held = await additionRepository.sweep(this.options.sql, this.options.draftMaxAgeMs);
        if (held > 0) this.options.log.info({ contacts: held }, 'deleted abandoned contact additions');
      });
    }
  }

  private async step(name: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.options.log.warn({ err: error, step: name }, 'campaign dispatcher step failed');
    }
  }

  /** scheduled -> running once start_at has come. */
  private async startDueScheduled(): Promise<void> {
    const started = await transaction(this.options.sql, async (tx) => {
      const due = await campaignRepository.lockDueScheduled(tx, BATCH, this.options.clock.now());
      for (const row of due) {
        const running = await campaignRepository.update(tx, row.id, {
          status: 'running',
          started_at: new Date(),
        });
        await afterChange(tx, running, { moved: [] }, row.status);
      }
      return due.length;
    });
    if (started > 0) this.loop.wake();
  }

  private async dispatch(campaignId: string): Promise<void> {
    const claimed = await transaction(this.options.sql, async (tx) => {
      // The count runs once the lock is held (in order, on the transaction's connection): one round
      // trip for both. It counts the contacts rather than trusting the stored counts: the cap is
      // a promise to the customer.
      const [campaign, inFlight] = await Promise.all([
        campaignRepository.lockRunning(tx, campaignId),
        contactRepository.inFlight(tx, campaignId),
      ]);
      if (!campaign) return [];
      const free = campaign.max_concurrent_calls - inFlight;
      if (free <= 0) return [];
      const now = this.options.clock.now();
      const contacts = campaign.calling_window
        ? await this.claimInWindow(tx, campaign.calling_window, campaignId, free, now)
        : await contactRepository.claimDue(tx, campaignId, free, now);
      if (contacts.length === 0) return [];
      await afterChange(tx, campaign, {
        moved: [{ from: 'pending', to: 'in_progress', n: contacts.length }],
      });
      this.options.log.debug(
        { campaign_id: campaignId, in_flight: inFlight, claimed: contacts.length },
        'claimed campaign contacts',
      );
      return contacts.map(
        (contact): Placement => ({
          accountId: campaign.account_id,
          campaignId,
          agentId: campaign.agent_id,
          sourceNumber: campaign.phone_number,
          contact,
        }),
      );
    });
    for (const placement of claimed) this.track(this.place(placement));
  }

  /**
   * Claims up to `free` due contacts of a windowed campaign that are inside their window at `now`;
   * the due ones before them that are outside it wait, still pending, for its next opening (their
   * next_attempt_at), which takes them out of the due set until then: no claim reads them again,
   * and the poll finds them once the clock reaches it. Counts do not move for a wait.
   */
  private async claimInWindow(
    tx: TransactionSql,
    window: CallingWindow,
    campaignId: string,
    free: number,
    now: Date,
  ): Promise<ContactRowDb[]> {
    const scan = Math.max(free, WINDOW_SCAN);
    const candidates = await contactRepository.dueCandidates(tx, campaignId, scan, now);
    const decision = gateByWindow(
      window,
      candidates.map((c) => ({ id: c.row_id, phone_number: c.phone_number, timezone: c.timezone })),
      this.options.zonesOfNumber,
      now,
      free,
    );
    await contactRepository.defer(
      tx,
      campaignId,
      decision.wait.map((w) => ({ rowId: w.id, until: w.until })),
    );
    if (decision.wait.length > 0) {
      this.options.log.debug(
        { campaign_id: campaignId, waiting: decision.wait.length },
        'campaign contacts outside their calling window wait for it to open',
      );
      // Every candidate judged and still room: more due contacts may follow; look again at once.
      if (decision.dial.length < free && candidates.length === scan) this.loop.wake();
    }
    return contactRepository.claimRows(tx, campaignId, decision.dial);
  }

  /**
   * A running campaign completes in the transaction that leaves nothing open, judged by counts
   * moved change by change (progress.ts). Were they ever wrong, saying something is still pending
   * when nothing is, no later change would come to complete it: this finds such a campaign from
   * the contacts themselves and completes it with recounted counts. It should find none.
   */
  private async completeIdle(): Promise<void> {
    const { sql, log } = this.options;
    for (const id of await campaignRepository.runningWithNothingOpen(sql, BATCH)) {
      const completed = await transaction(sql, async (tx) => {
        const campaign = await campaignRepository.lockRunning(tx, id);
        return campaign ? (await afterChange(tx, campaign, { recount: true })).status === 'completed' : false;
      });
      if (completed) log.warn({ campaign_id: id }, 'completed a campaign its stored counts had kept open');
    }
  }

  private async resendUnplaced(): Promise<void> {
    const { sql, placementLeaseMs, log } = this.options;
    for (const row of await contactRepository.claimUnplaced(sql, placementLeaseMs, BATCH)) {
      log.info(
        { campaign_id: row.campaign_id, call_id: row.current_call_id },
        're-sending a campaign call placement that was not confirmed',
      );
      this.track(
        this.place({
          accountId: row.account_id,
          campaignId: row.campaign_id,
          agentId: row.agent_id,
          sourceNumber: row.source_number,
          contact: row,
        }),
      );
    }
  }

  /** One placement; never throws (an unconfirmed one stays claimed and is re-sent after the lease). */
  private async place({ accountId, campaignId, agentId, sourceNumber, contact }: Placement): Promise<void> {
    const { sql, bus, log, campaigns } = this.options;
    const callId = contact.current_call_id!;
    try {
      await callRpc(
        bus,
        CALL.create,
        {
          id: callId,
          campaign_id: campaignId,
          agent_id: agentId,
          source_number: sourceNumber,
          phone_number: contact.phone_number!,
          metadata: { campaign_id: campaignId, contact: contact.data },
        },
        { requestId: randomUUID(), accountId },
      );
      await contactRepository.markPlaced(sql, campaignId, contact.position, callId);
      this.options.metrics?.placed('placed');
    } catch (error) {
      const code = error instanceof AppError ? error.code : undefined;
      const next = afterPlacementError(code);
      if (next === 'skip') {
        this.options.metrics?.placed('refused');
        await campaigns
          .skipAttempt(accountId, campaignId, callId, 'do_not_call')
          .catch((failure: unknown) => {
            log.warn(
              { err: failure, campaign_id: campaignId, call_id: callId },
              'could not record a skipped placement',
            );
          });
        return;
      }
      if (next === 'fail') {
        this.options.metrics?.placed('refused');
        const reason = error instanceof AppError ? `${error.code}: ${error.message}` : 'placement refused';
        await campaigns.failAttempt(accountId, campaignId, callId, reason).catch((failure: unknown) => {
          log.warn(
            { err: failure, campaign_id: campaignId, call_id: callId },
            'could not record a failed placement',
          );
        });
        return;
      }
      this.options.metrics?.placed('unconfirmed');
      log.warn(
        { err: error, campaign_id: campaignId, call_id: callId },
        'campaign call placement not confirmed; it is re-sent after the lease',
      );
    }
  }
}
