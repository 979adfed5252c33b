import type { Metrics } from '@voice/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';

// One account's burst of writes must not slow another account's: each account may have a few
// writes in the gateway's hands at once, and its further writes wait, unread, before any work is
// done on them (their bodies stay in the socket). While other accounts are writing too, each is
// held to fewer (`shared`): another account's write then shares the machine with two of the
// burst's instead of eight, which is what keeps its latency near the idle one. An account
// writing alone keeps the larger share, so one client's bulk posting is not slowed for nobody's
// sake. Reads (GET, HEAD) and the GraphQL and tRPC surfaces are not held: reads are cheap and a
// surface's request may be a long subscription.

interface Line {
  active: number;
  waiting: Array<(admitted: boolean) => void>;
}

/** How recent another account's write must be for the writers to count as sharing the gateway. */
export const SHARING_WINDOW_MS = 2_000;

export interface AdmissionLimits {
  /** Slots of an account writing alone; 0: no limit at all. */
  perAccount: number;
  /** Slots of each account while another account wrote within SHARING_WINDOW_MS (at most perAccount). */
  shared: number;
}

/** Per-account slots for writes in flight; the waiting ones are admitted in arrival order. */
export class AccountAdmission {
  private readonly lines = new Map<string, Line>();
  /** Accounts by their last write's time, oldest first (re-inserted on every write). */
  private readonly lastWrite = new Map<string, number>();
  private readonly perAccount: number;
  private readonly shared: number;
  private active = 0;
  private waiting = 0;

  constructor(
    limits: AdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perAccount = limits.perAccount;
    this.shared = Math.max(1, Math.min(limits.shared, limits.perAccount));
  }

  /**
   * Resolves true once `accountId` has a free slot (then `leave` must be called exactly once), or
   * false if `cancel` was called first. `cancel` after admission does nothing.
   */
  enter(accountId: string): { admitted: Promise<boolean>; cancel: () => void } {
    if (this.perAccount === 0) return { admitted: Promise.resolve(true), cancel: () => {} };
    this.noteWrite(accountId);
    const line = this.lines.get(accountId) ?? { active: 0, waiting: [] };
    this.lines.set(accountId, line);
    let resolve: (admitted: boolean) => void = () => {};
    const admitted = new Promise<boolean>((r) => {
      resolve = r;
    });
    line.waiting.push(resolve);
    this.waiting += 1;
    this.admitWaiting(accountId, line);
    const cancel = () => {
      const at = line.waiting.indexOf(resolve);
      if (at === -1) return;
      line.waiting.splice(at, 1);
      this.waiting -= 1;
      this.forgetIdle(accountId, line);
      resolve(false);
    };
    return { admitted, cancel };
  }

  /** Frees a slot of `accountId`: waiting writes take the slots the account now has. */
  leave(accountId: string): void {
    const line = this.lines.get(accountId);
    if (!line) return;
    line.active -= 1;
    this.active -= 1;
    this.admitWaiting(accountId, line);
    this.forgetIdle(accountId, line);
  }

  /** Writes in flight and waiting, over all accounts (the gateway's metrics). */
  totals(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting };
  }

  /** Admits the account's waiting writes, in arrival order, into the slots it has now. */
  private admitWaiting(accountId: string, line: Line): void {
    const slots = this.slotsOf(accountId);
    while (line.active < slots) {
      const next = line.waiting.shift();
      if (!next) return;
      this.waiting -= 1;
      line.active += 1;
      this.active += 1;
      next(true);
    }
  }

  /** The slots `accountId` has now: fewer while another account writes too. */
  private slotsOf(accountId: string): number {
    return this.othersWriting(accountId) ? this.shared : this.perAccount;
  }

  private othersWriting(accountId: string): boolean {
    const since = this.now() - SHARING_WINDOW_MS;
    for (const [id, at] of this.lastWrite) {
      if (at >= since) break;
      // Oldest first: what is left after the stale ones is recent.
      this.lastWrite.delete(id);
    }
    if (this.lastWrite.size > 1 || (this.lastWrite.size === 1 && !this.lastWrite.has(accountId))) return true;
    // A write of another account still in hand (a long upload) counts however old its start.
    return this.lines.size > (this.lines.has(accountId) ? 1 : 0);
  }

  private noteWrite(accountId: string): void {
    this.lastWrite.delete(accountId);
    this.lastWrite.set(accountId, this.now());
  }

  private forgetIdle(accountId: string, line: Line): void {
    if (line.active === 0 && line.waiting.length === 0) this.lines.delete(accountId);
  }
}

const HELD = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The onRequest hook (after the edge, so the caller is known): holds a REST write of a key until
 * its account has a slot, freed when the response is over or the client went away.
 */
export function admitWrites(admission: AccountAdmission) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = request.principal;
    const auth = request.routeOptions.config.auth;
    if (!principal || auth?.kind !== 'key' || !HELD.has(request.method)) return;
    const account = principal.accountId;
    const ticket = admission.enter(account);
    const gone = () => ticket.cancel();
    reply.raw.once('close', gone);
    const admitted = await ticket.admitted;
    reply.raw.off('close', gone);
    if (!admitted) {
      // The client left while waiting: nothing was done, nothing is answered.
      reply.hijack();
      return;
    }
    if (reply.raw.destroyed) {
      admission.leave(account);
      reply.hijack();
      return;
    }
    reply.raw.once('close', () => admission.leave(account));
  };
}

/** The admission's gauges, read at scrape time. */
export function admissionMetrics(metrics: Metrics, admission: AccountAdmission): void {
  metrics.gauge(
    'gateway_account_writes_in_flight',
    'REST writes being handled, over all accounts (ACCOUNT_WRITES_IN_FLIGHT slots per account, ACCOUNT_WRITES_SHARED while others write)',
    [],
    (gauge) => gauge.set(admission.totals().active),
  );
  metrics.gauge(
    'gateway_account_writes_waiting',
    'REST writes waiting, unread, for a slot of their account',
    [],
    (gauge) => gauge.set(admission.totals().waiting),
  );
}
