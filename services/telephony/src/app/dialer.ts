import {
  AppError,
  type Bus,
  type CallContext,
  callRpc,
  rpc,
  type SipCallEnd,
  type SipDialReply,
  type SipDialRequest,
  SipHangupReply,
  SipHangupRequest,
  type Sql,
  waitAtMost,
} from '@voice/shared';
import type { z } from 'zod';
import { callRepository } from '../db/call-repository';
import { trunkRepository } from '../db/trunk-repository';
import { LiveCall, type LiveCallDeps } from './live-call';
import { endLostCall } from './lost-calls';

/**
 * The hang-up of one instance's calls: every instance answers on a subject of its own, so a
 * TELEPHONY.hangup that reached another replica (its queue group picks any) goes to the owner.
 */
export const instanceHangup = (instance: string) =>
  rpc(`telephony.instance.${instance}.hangup`, SipHangupRequest, SipHangupReply);

type HangupReply = z.infer<typeof SipHangupReply>;

/**
 * The calls this instance dials and carries. A call id is dialed at most once across every
 * instance (its row is created once); its media lives here until it ends.
 */
export class Dialer {
  private readonly live = new Map<string, { call: LiveCall; done: Promise<void> }>();
  private closing = false;

  constructor(
    private readonly sql: Sql,
    private readonly bus: Bus,
    readonly instance: string,
    /** Resolves once this instance's lease is held and its SIP user agent and RTP ports are ready. */
    private readonly media: Promise<LiveCallDeps>,
    /** Told how each call this instance carried ended. */
    private readonly onEnded: (end: SipCallEnd) => void = () => {},
  ) {}

  async dial(accountId: string, request: SipDialRequest): Promise<z.input<typeof SipDialReply>> {
    if (this.closing) throw new AppError('SERVICE_UNAVAILABLE', 'This telephony instance is stopping');
    const trunk = await trunkRepository.find(this.sql, accountId, request.trunk_id);
    if (!trunk) throw new AppError('SIP_TRUNK_NOT_FOUND');
    const deps = await this.media;
    const { created, row } = await callRepository.insertOnce(this.sql, {
      callId: request.call_id,
      accountId,
      trunkId: trunk.id,
      instance: this.instance,
    });
    if (!row) throw new AppError('CALL_NOT_FOUND', 'The call id belongs to another account');
    if (!created) return { call_id: row.call_id, instance: row.instance, already: true };
    const call = new LiveCall(deps, row, trunk, request);
    const done = call
      .run()
      .then(this.onEnded)
      .catch((error: unknown) =>
        deps.log.error({ call_id: row.call_id, err: error }, 'telephony: call failed'),
      )
      .finally(() => this.live.delete(row.call_id));
    this.live.set(row.call_id, { call, done });
    return { call_id: row.call_id, instance: this.instance, already: false };
  }

  /**
   * Ends the call wherever it is carried: here, by its owner over the owner's own subject, or, when
   * the owner is dead, as a lost call right away.
   */
  async hangup(accountId: string, callId: string, ctx: CallContext): Promise<HangupReply> {
    const row = await callRepository.find(this.sql, accountId, callId);
    if (!row) throw new AppError('CALL_NOT_FOUND');
    if (row.state === 'ended') return { call_id: callId, ended: false };
    if (row.instance === this.instance) return this.hangupHere(callId);
    try {
      return await callRpc(this.bus, instanceHangup(row.instance), { call_id: callId }, ctx);
    } catch (error) {
      const [lost] = await callRepository.orphans(this.sql, this.instance, 1, callId);
      if (!lost) throw error;
      return { call_id: callId, ended: await endLostCall(this.sql, lost) };
    }
  }

  /** Ends a call this instance carries; `ended: false` when it is not (any more) live here. */
  hangupHere(callId: string): HangupReply {
    const entry = this.live.get(callId);
    entry?.call.stop('hangup');
    return { call_id: callId, ended: entry !== undefined };
  }

  /** Refuses new dials and ends every live call (BYE or CANCEL), waiting at most `timeoutMs`. */
  async close(timeoutMs: number): Promise<boolean> {
    this.closing = true;
    const entries = [...this.live.values()];
    for (const { call } of entries) call.stop('shutdown', 'the telephony service stopped');
    return waitAtMost(Promise.all(entries.map((e) => e.done)), timeoutMs);
  }

  get liveCalls(): number {
    return this.live.size;
  }
}
