import type { Metrics } from '@voice/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';

// One account's burst of writes must not slow another account's: each account may have a few
// writes in the gateway's hands at once, and its further writes wait, unread, before any work is
// done on them (their bodies stay in the socket). Another account's write then shares the
// machine with those few instead of with the whole burst. Reads (GET, HEAD) and the GraphQL and
// tRPC surfaces are not held: reads are cheap and a surface's request may be a long subscription.

interface Line {
  active: number;
  waiting: Array<(admitted: boolean) => void>;
}

/** Per-account slots for writes in flight; the waiting ones are admitted in arrival order. */
export class AccountAdmission {
  private readonly lines = new Map<string, Line>();
  private active = 0;
  private waiting = 0;

  /** `perAccount` 0: no limit. */
  constructor(private readonly perAccount: number) {}

  /**
   * Resolves true once `accountId` has a free slot (then `leave` must be called exactly once), or
   * false if `cancel` was called first. `cancel` after admission does nothing.
   */
  enter(accountId: string): { admitted: Promise<boolean>; cancel: () => void } {
    if (this.perAccount === 0) return { admitted: Promise.resolve(true), cancel: () => {} };
    const line = this.lines.get(accountId) ?? { active: 0, waiting: [] };
    this.lines.set(accountId, line);
    if (line.active < this.perAccount) {
      line.active += 1;
      this.active += 1;
      return { admitted: Promise.resolve(true), cancel: () => {} };
    }
    let resolve: (admitted: boolean) => void = () => {};
    const admitted = new Promise<boolean>((r) => {
      resolve = r;
    });
    line.waiting.push(resolve);
    this.waiting += 1;
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

  /** Frees a slot of `accountId`: the next waiting write takes it. */
  leave(accountId: string): void {
    const line = this.lines.get(accountId);
    if (!line) return;
    const next = line.waiting.shift();
    if (next) {
      this.waiting -= 1;
      next(true);
      return;
    }
    line.active -= 1;
    this.active -= 1;
    this.forgetIdle(accountId, line);
  }

  /** Writes in flight and waiting, over all accounts (the gateway's metrics). */
  totals(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting };
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
    'REST writes being handled, over all accounts (each account has ACCOUNT_WRITES_IN_FLIGHT slots)',
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
