import { randomUUID } from 'node:crypto';
import {
  type AgentCallStats,
  type AgentCopies,
  type AgentSnapshot,
  AppError,
  type Bus,
  type Call,
  type CallContext,
  type CallFilters,
  eventEnvelope,
  type Logger,
  type MakeCallBody,
  type Metrics,
  type NewEvent,
  type PageOf,
  type PageQuery,
  PLAN_MAX_CONCURRENT_CALLS,
  requireAccount,
  type Sql,
  type TrunkRoute,
  toPage,
  transaction,
} from '@voice/shared';
import {
  type CallSession,
  type CarrierEvent,
  type CarrierStage,
  connectedSeconds,
  costs,
  type DialRequest,
  type SipCarrier,
  type TelephonyProvider,
} from '../carrier/index';
import { callRepository, newCallRow } from '../db/call-repository';
import { agentCopy, type CallRow, toCall } from '../db/call-rows';
import { agentCallStats } from '../db/call-stats-repository';
import { PlacementWriter } from '../db/placement-writer';
import type { PromptStore } from '../db/prompt-store';
import { TransitionWriter } from '../db/transition-writer';
import { isFinal } from '../domain/lifecycle';
import { recordTransitionEvents, statusEvent, transitionEvents } from './call-events';
import { type DialOutcome, DialQueue } from './dial-queue';
import type { DoNotCallApp } from './do-not-call';
import { type CallMetrics, callMetrics } from './metrics';
import { transitionFor } from './transitions';

export interface CallsOptions {
  sql: Sql;
  bus: Bus;
  log: Logger;
  /** The network of calls no SIP trunk carries: the simulated carrier (or one plugged in its place). */
  provider: TelephonyProvider;
  /** The network of calls over the account's SIP trunks: the telephony service. */
  sip: SipCarrier;
  /** The prompts of SIP calls, kept at placement for their dial (the call row carries none). */
  prompts: PromptStore;
  /** The carrier a call from a source number goes out through (TELEPHONY.route). */
  route: (ctx: CallContext, sourceNumber: string) => Promise<TrunkRoute>;
  /** This instance's name in `owner`: the driver of the calls it placed or took over. */
  instanceId: string;
  /** How long this instance's lease lasts unrenewed (CALL_LEASE_SECONDS). */
  leaseSeconds: number;
  /** The process's registry: transitions, takeovers and this instance's live calls are reported there. */
  metrics?: Metrics | undefined;
  /** The agents calls are placed with (kept between calls). */
  agents: AgentCopies<AgentSnapshot>;
  /** Calls handed to the carrier per second by this instance (CALL_DIALS_PER_SECOND). */
  dialsPerSecond: number;
  /** The account's do-not-call list: a call to a listed number is refused (DO_NOT_CALL). */
  doNotCall: Pick<DoNotCallApp, 'refuseListed'>;
}

/**
 * The limit of an account whose own never reached this service (the gateway pushes every account's
 * at creation, on change, and at its start for any not yet delivered): the free plan's.
 */
const UNKNOWN_ACCOUNT_LIMIT = PLAN_MAX_CONCURRENT_CALLS.free;

function dialRequest(row: CallRow, dialedAt: Date): DialRequest {
  const agent = row.agent_snapshot;
  return {
    callId: row.id,
    accountId: row.account_id,
    trunkId: row.trunk_id,
    from: row.source_number,
    to: row.phone_number,
    agent: {
      id: agent.id,
      name: agent.name,
      agent_type: agent.agent_type,
      goal: agent.goal,
      language: agent.language,
      start_flow: agent.start_flow,
      end_flow: agent.end_flow,
      collects: agent.collects,
      voice: agent.voice,
      ai_model: agent.ai_model,
    },
    metadata: row.metadata,
    promptHash: row.prompt_hash,
    // The carrier's clock starts when it got the call, not when the call was accepted.
    startedAt: dialedAt,
  };
}

/**
 * Calls of every account: placing them, driving them through the carrier's events, and reading them.
 * Each transition happens under the call's row lock and only forward, so a call gets exactly one
 * final state and one CALL_ENDED however often an event is delivered or a driver is replaced.
 */
export class CallsApp {
  private readonly live = new Map<string, CallSession>();
  /** The stored row of each call driven here, as this instance last wrote or read it. */
  private readonly rows = new Map<string, CallRow>();
  private stopped = false;
  private readonly metrics: CallMetrics | undefined;
  private readonly queue: DialQueue;
  /** Placements stored together while a statement is in flight (group commit). */
  private readonly placements: PlacementWriter;
  /** Transitions of calls driven here, stored together likewise. */
  private readonly transitions: TransitionWriter;

  constructor(private readonly options: CallsOptions) {
    this.placements = new PlacementWriter(options.sql);
    this.transitions = new TransitionWriter(options.sql);
    this.queue = new DialQueue({
      perSecond: options.dialsPerSecond,
      dial: (rows) => this.dialBatch(rows),
      log: options.log,
    });
    this.metrics =
      options.metrics &&
      callMetrics(options.metrics, {
        live: () => this.live.size,
        waiting: () => this.queue.size,
        liveByAccount: () => this.liveByAccount(),
        waitingByAccount: () => this.queue.waitingByAccount(),
        heldAccounts: () => this.queue.heldAccounts(),
      });
  }

  /**
   * Places a call. With a caller-chosen `id` (the campaign service's), a call that exists with
   * that id is answered as it is, even if its agent was deleted since: nobody is dialed twice.
   * That is known from the insert itself (ON CONFLICT), so a first placement, by far the usual
   * one, costs no lookup before it.
   */
  async place(
    ctx: CallContext,
    body: MakeCallBody & { campaign_id?: string | undefined; id?: string | undefined },
  ): Promise<Call> {
    const accountId = requireAccount(ctx);
    // The lease row exists before the first call names this instance (see claimOrphans).
    await this.leased();
    let agent: Awaited<ReturnType<typeof this.options.agents.get>>;
    let route: TrunkRoute;
    try {
      // Asked together (one round trip's wait); an agent that is not found is said first. The
      // do-not-call list is read at every placement, so a number listed after a campaign started
      // is refused when its contact's turn comes (the campaign skips it for DO_NOT_CALL).
      const [agentAnswer, routeAnswer, listedAnswer] = await Promise.allSettled([
        this.options.agents.get(ctx, body.agent_id),
        this.routeOf(ctx, body.source_number),
        this.options.doNotCall.refuseListed(accountId, body.phone_number),
      ]);
      if (agentAnswer.status === 'rejected') throw agentAnswer.reason;
      if (listedAnswer.status === 'rejected') throw listedAnswer.reason;
      if (routeAnswer.status === 'rejected') throw routeAnswer.reason;
      agent = agentAnswer.value;
      route = routeAnswer.value;
    } catch (error) {
      // A re-sent placement whose agent was deleted since (or whose trunk went away, or whose
      // router is down): the call it placed, if there is one.
      const existing = body.id ? await callRepository.find(this.options.sql, accountId, body.id) : undefined;
      if (existing) return toCall(existing);
      throw error;
    }
    // Before the call exists, so whichever instance dials it finds its prompt.
    if (route.trunk) await this.options.prompts.keep(agent.prompt_hash, agent.prompt);
    const now = new Date();
    const row = newCallRow(
      accountId,
      {
        id: body.id ?? randomUUID(),
        agent_id: agent.id,
        agent_snapshot: agentCopy(agent),
        campaign_id: body.campaign_id ?? null,
        phone_number: body.phone_number,
        source_number: body.source_number,
        metadata: body.metadata ?? null,
        started_at: now,
        prompt_version_id: agent.prompt_version_id,
        prompt_hash: agent.prompt_hash,
        owner: this.options.instanceId,
        carrier: route.trunk ? 'sip' : this.options.provider.info.provider,
        trunk_id: route.trunk?.id ?? null,
      },
      now,
    );
    const placed = await this.placements.place(row);
    if (!placed) return this.placedAlready(accountId, body.id);
    this.metrics?.transitioned(row.status);
    // Announced before it can be dialed, so its subscribers see 'initializing' first.
    this.announce(statusEvent(row, null));
    this.queue.push(row);
    return toCall(row);
  }

  /**
   * The carrier of a call from `sourceNumber`. NO_SIP_TRUNK (422) reaches the caller as it is. A
   * telephony service that cannot be reached places nothing (503, or 504 for no answer in time):
   * dialing by the simulated carrier instead could pretend to call someone a trunk should have.
   */
  private async routeOf(ctx: CallContext, sourceNumber: string): Promise<TrunkRoute> {
    try {
      return await this.options.route(ctx, sourceNumber);
    } catch (error) {
      if (
        error instanceof AppError &&
        (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'SERVICE_TIMEOUT')
      ) {
        throw new AppError(
          error.code,
          'The telephony service, which picks the trunk a call goes out through, could not be reached; ' +
            'the call was not placed',
          { cause: error },
        );
      }
      throw error;
    }
  }

  private leaseWritten: Promise<void> | undefined;

  /** This instance's lease, written once before its first placement (the keeper renews it). */
  private leased(): Promise<void> {
    this.leaseWritten ??= callRepository
      .renewLease(this.options.sql, this.options.instanceId, this.options.leaseSeconds)
      .catch((error: unknown) => {
        this.leaseWritten = undefined;
        throw error;
      });
    return this.leaseWritten;
  }

  /**
   * An earlier placement with the same id stored the call: its call, never a second dial. That
   * placement may have failed after its insert committed (the database went away before it
   * answered), leaving a call no dial queue holds: one not yet dialed is taken here and queued.
   */
  private async placedAlready(accountId: string, id: string | undefined): Promise<Call> {
    const existing = id ? await callRepository.find(this.options.sql, accountId, id) : undefined;
    if (!existing) throw new AppError('INVALID_STATE', 'This call id is already in use');
    if (existing.dialed_at === null && existing.status === 'initializing') {
      const adopted = await callRepository.adopt(this.options.sql, this.options.instanceId, existing.id);
      if (adopted) this.queue.push(adopted);
    }
    return toCall(existing);
  }

  async get(accountId: string, callId: string): Promise<Call> {
    const row = await callRepository.find(this.options.sql, accountId, callId);
    if (!row) throw new AppError('CALL_NOT_FOUND');
    return toCall(row);
  }

  /** How long the agent's latest ended calls lasted (a campaign dry run's ETA). */
  agentCallStats(accountId: string, agentId: string): Promise<AgentCallStats> {
    return agentCallStats(this.options.sql, accountId, agentId);
  }

  async list(accountId: string, filters: CallFilters, page: PageQuery): Promise<PageOf<Call>> {
    const { rows, extent } = await callRepository.page(this.options.sql, accountId, filters, page);
    return toPage(
      rows.map((row) => toCall(row)),
      extent,
      page,
    );
  }

  /**
   * Takes over a call of this instance's lease: one that never reached the carrier waits for its
   * turn in the dial queue; one that did is resumed where it was (or dialed again if the carrier
   * reported nothing yet).
   */
  drive(row: CallRow, stage: CarrierStage): void {
    if (row.dialed_at === null) {
      this.queue.push(row);
      return;
    }
    this.hand(row, stage, row.dialed_at);
  }

  /**
   * Marks a batch of waiting calls dialed, each within its account's concurrent-call limit, then
   * hands those to the carrier from the start; the rest wait in the queue for a slot.
   */
  private async dialBatch(rows: CallRow[]): Promise<DialOutcome> {
    const marks = await transaction(this.options.sql, (tx) =>
      callRepository.markDialed(tx, this.options.instanceId, rows, UNKNOWN_ACCOUNT_LIMIT),
    );
    for (const account of marks.accounts) if (!account.known) this.warnUnknownLimit(account.account_id);
    const outcome: DialOutcome = {
      held: new Set(marks.held),
      free: new Map(marks.accounts.map((a) => [a.account_id, a.free])),
    };
    if (marks.held.length > 0) this.metrics?.held(marks.held.length);
    if (this.stopped) return outcome; // the leases are released: a replica or restart dials them
    const at = new Map(marks.dialed.map((d) => [d.id, d.dialed_at]));
    for (const row of rows) {
      const dialedAt = at.get(row.id);
      if (dialedAt) this.hand(row, 'initializing', dialedAt);
    }
    return outcome;
  }

  private readonly warnedUnknown = new Set<string>();

  /** Once per account and instance (bounded): its limit never reached this service. */
  warnUnknownLimit(accountId: string): void {
    if (this.warnedUnknown.has(accountId)) return;
    if (this.warnedUnknown.size >= 1000) this.warnedUnknown.clear();
    this.warnedUnknown.add(accountId);
    this.options.log.warn(
      { account_id: accountId, max_concurrent_calls: UNKNOWN_ACCOUNT_LIMIT },
      'no concurrent-call limit stored for this account (the gateway pushes it); holding it to the free plan default',
    );
  }

  /** The account's limit changed: its waiting calls here are tried again at once. */
  limitChanged(accountId: string): void {
    this.queue.freed(accountId, Number.POSITIVE_INFINITY);
  }

  /** Live calls driven here, by account. */
  private liveByAccount(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const row of this.rows.values()) counts.set(row.account_id, (counts.get(row.account_id) ?? 0) + 1);
    return counts;
  }

  private hand(row: CallRow, stage: CarrierStage, dialedAt: Date): void {
    // Already driven here (its lease lapsed while renewals failed and the keeper reclaimed it).
    if (this.live.has(row.id)) return;
    const request = dialRequest(row, dialedAt);
    // Known before the carrier can report anything (a number that fails at once).
    this.rows.set(row.id, row);
    const onEvent = (event: CarrierEvent) => this.apply(row.id, event);
    const fresh = stage === 'initializing' && row.sequence === 1;
    const provider = this.providerOf(row);
    const session = fresh ? provider.dial(request, onEvent) : provider.resume(request, stage, onEvent);
    if (!fresh) this.metrics?.resumed();
    this.live.set(row.id, session);
    void session.done.finally(() => {
      if (this.live.get(row.id) !== session) return;
      this.live.delete(row.id);
      this.rows.delete(row.id);
    });
  }

  /** A call routed to a trunk goes through the telephony service; any other, the default network. */
  private providerOf(row: Pick<CallRow, 'trunk_id'>): TelephonyProvider {
    return row.trunk_id === null ? this.options.provider : this.options.sip;
  }

  /** One carrier event, applied once: stale or repeated events change nothing. */
  async apply(callId: string, event: CarrierEvent): Promise<void> {
    if (this.stopped)
      throw new AppError('SERVICE_UNAVAILABLE', 'call service stopping; the call is resumed elsewhere');
    const known = this.rows.get(callId);
    if (known) {
      // The call as this driver last wrote it: one statement, guarded by its sequence. No change
      // from what it knows means none from what is stored, which is only ever further along.
      const changes = transitionFor(known, event);
      if (!changes) return;
      const updated: CallRow = { ...known, ...changes, sequence: known.sequence + 1 };
      const { live, durable } = transitionEvents(updated, known.status);
      const durableEnvelope = durable && eventEnvelope(durable);
      if (await this.transitions.advance(known, updated, event.at, durableEnvelope)) {
        this.remember(updated);
        this.metrics?.transitioned(updated.status);
        if (isFinal(updated.status)) this.queue.freed(updated.account_id);
        if (live) this.announce(live);
        return;
      }
    }
    // Someone else moved the call (a reaper, a driver that took it over), or this driver does not
    // know it: decide under the row lock from what is stored.
    const entered = await transaction(this.options.sql, async (tx) => {
      const row = await callRepository.lock(tx, callId);
      if (!row) return undefined;
      const changes = transitionFor(row, event);
      if (!changes) {
        this.remember(row);
        return undefined;
      }
      const updated = await callRepository.transition(tx, row, changes, event.at);
      const live = await recordTransitionEvents(tx, updated, row.status);
      this.remember(updated);
      return { status: updated.status, accountId: updated.account_id, live };
    });
    if (!entered) return;
    this.metrics?.transitioned(entered.status);
    if (isFinal(entered.status)) this.queue.freed(entered.accountId);
    if (entered.live) this.announce(entered.live);
  }

  /**
   * Publishes a live status event once its transition committed (call-events.ts says why it is
   * not in the outbox). Not awaited: a transition never waits on, or fails for, its announcement.
   */
  private announce(event: NewEvent<unknown>): void {
    this.options.bus.publish(event.subject, eventEnvelope(event)).catch((error: unknown) => {
      this.options.log.warn({ err: error, subject: event.subject }, 'live call event not published');
    });
  }

  /** Keeps the row a live call was last seen with here, for the next transition's guarded write. */
  private remember(row: CallRow): void {
    if (this.rows.has(row.id) && !isFinal(row.status)) this.rows.set(row.id, row);
    else this.rows.delete(row.id);
  }

  /**
   * Ends a call that outlived any plausible end: failed, by the system, for a timeout, keeping what
   * it had (answer time, transcript so far).
   */
  async endStuck(callId: string): Promise<void> {
    const ended = await transaction(this.options.sql, async (tx) => {
      const row = await callRepository.lock(tx, callId);
      if (!row || isFinal(row.status)) return undefined;
      const now = new Date();
      const duration = connectedSeconds(row.answered_at, now);
      const cost = costs(duration);
      const updated = await callRepository.transition(
        tx,
        row,
        {
          status: 'failed',
          ended_at: now,
          duration_seconds: duration,
          ai_cost: String(cost.ai_cost),
          telephony_cost: String(cost.telephony_cost),
          total_cost: String(cost.total_cost),
          call_summary: 'The call did not finish in time and was ended by the system.',
          call_end_reason: 'timeout',
          ended_by: 'system',
          details_collection: { status: 'none', score: 0, collected_details: [], collected_values: {} },
          owner: null,
        },
        now,
      );
      await recordTransitionEvents(tx, updated, row.status);
      return row;
    });
    if (ended) {
      this.metrics?.transitioned('failed');
      this.queue.freed(ended.account_id);
    }
    this.options.log.warn({ call_id: callId }, 'ended a stuck call as failed (timeout)');
    const session = this.live.get(callId);
    if (session) await session.hangUp().catch(() => undefined);
    // A SIP call is carried by the telephony service whichever call service instance placed it.
    else if (ended?.trunk_id) {
      await this.options.sip.hangUp(ended.account_id, callId).catch((error: unknown) => {
        this.options.log.warn({ err: error, call_id: callId }, 'could not hang up a stuck SIP call');
      });
    }
  }

  /**
   * Forgets the SIP calls dialed here that ended on another instance (progress reaches whichever
   * instance the durable consumer hands it to), so none is tracked here forever.
   */
  async forgetEnded(): Promise<void> {
    for (const id of await callRepository.ended(this.options.sql, this.options.sip.openCallIds())) {
      this.options.sip.settle(id);
    }
  }

  /** Calls whose carrier session runs here (the reaper can hang these up). */
  liveCallIds(): string[] {
    return [...this.live.keys()];
  }

  /**
   * Stops applying events and hands this instance's calls back, so a restart or a replica resumes
   * them at once; then ends its lease (a call that still names it is an orphan at once).
   */
  async detach(): Promise<void> {
    this.stopped = true;
    const ids = [...(await this.queue.stop()), ...this.liveCallIds()];
    const { sql, instanceId, log } = this.options;
    try {
      if (ids.length > 0) {
        await callRepository.release(sql, instanceId, ids);
      }
      await callRepository.endLease(sql, instanceId);
    } catch (error) {
      log.warn({ err: error }, 'could not hand calls back; they are taken over once the lease lapses');
    }
  }
}
