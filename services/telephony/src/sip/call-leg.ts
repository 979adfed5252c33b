import type { SipTransport } from '@voice/shared/contracts';
import type { InviteEndCause } from '../domain/sip-outcome';
import { authorizedRetry, isChallenge } from './auth';
import type { LegContext } from './context';
import { Dialog } from './dialog';
import type { DigestCredentials } from './digest';
import type { CallEnded, CallProgress, CallProgressType } from './events';
import { parseCSeq, tagOf } from './fields';
import { header, type SipRequest, type SipResponse } from './message';
import { cancelFor } from './requests';
import { InDialogServer } from './server-side';
import type { ClientTransaction, TransactionUser } from './transaction';
import type { Peer } from './transport';

type Phase = 'calling' | 'proceeding' | 'answered' | 'ended';
type CancelCause = 'ring_timeout' | 'cancelled';

export interface CallLegSetup {
  invite: SipRequest;
  transport: SipTransport;
  credentials: DigestCredentials | null;
  localSdp: string;
  ringTimeoutMs: number;
}

/**
 * One outgoing call: the INVITE (with one digest retry, CANCEL at the ring timeout or on hang-up),
 * then the dialog (ACK, BYE either way, re-INVITE answered). Progress is reported in order and
 * `ended` exactly once, last.
 */
export class CallLeg {
  readonly callId: string;
  /** Our tag (in From): in-dialog requests from the far end carry it in To. */
  readonly localTag: string | null;
  readonly history: CallProgress[] = [];
  readonly ended: Promise<CallEnded>;
  private resolveEnded!: (end: CallEnded) => void;
  private readonly listeners = new Set<(progress: CallProgress) => void>();
  private phase: Phase = 'calling';
  private invite: SipRequest;
  private inviteTx: ClientTransaction | null = null;
  private peer: Peer | null = null;
  private authTried = false;
  private cancelCause: CancelCause | null = null;
  private cancelSent = false;
  private timers: NodeJS.Timeout[] = [];
  /** Set once a 2xx is acknowledged; in-dialog requests go through it. */
  dialog: Dialog | null = null;
  private ack: SipRequest | null = null;
  private final: { code: number; reason: string } | null = null;
  private sawEarlySdp = false;
  private readonly server: InDialogServer;

  constructor(
    private readonly ctx: LegContext,
    private readonly setup: CallLegSetup,
  ) {
    this.invite = setup.invite;
    this.callId = header(setup.invite, 'call-id') ?? '';
    this.localTag = tagOf(header(setup.invite, 'from'));
    this.server = new InDialogServer(ctx, setup.localSdp, header(setup.invite, 'contact') ?? '');
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** Subscribes to progress; returns the unsubscribe function. `history` holds what came before. */
  onProgress(listener: (progress: CallProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first progress of `type` (already seen or to come); rejects once ended without it. */
  waitFor<T extends CallProgressType>(type: T): Promise<Extract<CallProgress, { type: T }>> {
    const seen = this.history.find((p) => p.type === type);
    if (seen) return Promise.resolve(seen as Extract<CallProgress, { type: T }>);
    return new Promise((resolve, reject) => {
      const stop = this.onProgress((p) => {
        if (p.type === type) resolve(p as Extract<CallProgress, { type: T }>);
        else if (p.type === 'ended') reject(new Error(`call ended (${p.cause} ${p.sipCode}) before ${type}`));
        else return;
        stop();
      });
    });
  }

  /** Sends the INVITE once the trunk's address is known. */
  begin(peer: Promise<Peer>): void {
    peer.then(
      (resolved) => {
        if (this.phase === 'ended') return;
        this.peer = resolved;
        this.sendInvite();
        this.later(this.setup.ringTimeoutMs, () => this.cancel('ring_timeout'));
      },
      () => this.finish('remote', 'transport_error'),
    );
  }

  /** CANCEL before the answer, BYE after; resolves when the call has ended. */
  hangUp(): Promise<CallEnded> {
    if (this.phase === 'answered') this.bye();
    else if (this.phase !== 'ended') this.cancel('cancelled');
    return this.ended;
  }

  /** A 2xx that arrived after its transaction ended: our ACK was lost (13.2.2.4). */
  retransmitted2xx(): void {
    if (this.ack && this.dialog) this.ctx.send(this.ack, this.dialog.peer);
  }

  /** A request from the far end inside this call (BYE, re-INVITE, OPTIONS...). */
  receive(request: SipRequest, from: Peer): void {
    const action = this.server.receive(request, from, this.dialog);
    if (action.kind === 'bye') this.finish('remote', 'response');
    else if (action.kind === 'media' && this.phase === 'answered') {
      this.emit({ type: 'media_updated', remoteSdp: action.remoteSdp });
    }
  }

  private sendInvite(): void {
    const user: TransactionUser = {
      onResponse: (response) => this.onInviteResponse(response),
      onTimeout: () => this.finish('timeout', this.cancelCause ?? 'no_response'),
      onTransportError: () => this.finish('remote', 'transport_error'),
    };
    this.inviteTx = this.ctx.startTransaction(this.invite, this.peer!, user);
  }

  private onInviteResponse(response: SipResponse): void {
    if (response.status < 200) {
      this.onProvisional(response);
      return;
    }
    if (response.status < 300) {
      void this.onAnswer(response);
      return;
    }
    const retry = !this.authTried && isChallenge(response) && this.cancelCause === null;
    const authorized = retry ? authorizedRetry(this.invite, response, this.setup.credentials) : null;
    if (authorized) {
      this.authTried = true;
      this.invite = authorized;
      this.phase = 'calling';
      this.sendInvite();
      return;
    }
    this.final = { code: response.status, reason: response.reason };
    if (this.cancelCause)
      this.finish(this.cancelCause === 'ring_timeout' ? 'timeout' : 'local', this.cancelCause);
    else this.finish('remote', 'response');
  }

  private onProvisional(response: SipResponse): void {
    if (this.phase === 'ended') return;
    this.phase = 'proceeding';
    if (this.cancelCause && !this.cancelSent) this.sendCancel();
    if (response.status === 100) {
      if (!this.history.some((p) => p.type === 'trying' || p.type === 'ringing'))
        this.emit({ type: 'trying' });
      return;
    }
    const sdp = sdpOf(response);
    const ringing = this.history.some((p) => p.type === 'ringing');
    if (ringing && (sdp === null || this.sawEarlySdp)) return;
    this.sawEarlySdp ||= sdp !== null;
    this.emit({ type: 'ringing', sipCode: response.status, sipReason: response.reason, earlySdp: sdp });
  }

  private async onAnswer(response: SipResponse): Promise<void> {
    if (this.dialog) return this.retransmitted2xx();
    this.final = { code: response.status, reason: response.reason };
    let dialog: Dialog;
    try {
      dialog = await Dialog.establish(this.ctx, this.invite, response, this.setup.transport);
    } catch {
      return this.finish('remote', 'transport_error');
    }
    this.dialog = dialog;
    this.ack = dialog.ack(parseCSeq(header(this.invite, 'cseq'))?.seq ?? 1);
    this.ctx.send(this.ack, dialog.peer);
    if (this.phase === 'ended' || this.cancelCause) {
      // The answer crossed our CANCEL (or came after we gave up): end the call it opened.
      this.bye(this.cancelCause ?? 'cancelled');
      return;
    }
    this.phase = 'answered';
    this.emit({
      type: 'answered',
      sipCode: response.status,
      sipReason: response.reason,
      remoteSdp: sdpOf(response),
    });
  }

  private cancel(cause: CancelCause): void {
    if (this.cancelCause || this.phase === 'answered' || this.phase === 'ended') return;
    this.cancelCause = cause;
    // CANCEL waits for a provisional response (9.1); a far end that never sends one hits timer B.
    if (this.phase === 'proceeding') this.sendCancel();
    this.later(this.ctx.timers.transactionTimeoutMs, () =>
      this.finish(cause === 'ring_timeout' ? 'timeout' : 'local', cause),
    );
  }

  private sendCancel(): void {
    this.cancelSent = true;
    const ignore = (): void => {};
    this.ctx.startTransaction(cancelFor(this.invite), this.peer!, {
      onResponse: ignore,
      onTimeout: ignore,
      onTransportError: ignore,
    });
  }

  private bye(cause: InviteEndCause = 'response', retried = false, request?: SipRequest): void {
    const dialog = this.dialog!;
    const bye = request ?? dialog.request('BYE');
    const by = cause === 'ring_timeout' ? 'timeout' : 'local';
    this.ctx.startTransaction(bye, dialog.peer, {
      onResponse: (response) => {
        if (response.status < 200) return;
        const again = retried ? null : authorizedRetry(bye, response, this.setup.credentials);
        if (again && isChallenge(response)) {
          dialog.noteSeq(again);
          this.bye(cause, true, again);
        } else this.finish(by, cause);
      },
      onTimeout: () => this.finish(by, cause),
      onTransportError: () => this.finish(by, cause),
    });
  }

  private finish(by: CallEnded['by'], cause: InviteEndCause): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    for (const timer of this.timers) clearTimeout(timer);
    this.server.stop();
    this.inviteTx?.abandon();
    const end: CallEnded = {
      type: 'ended',
      sipCode: this.final?.code ?? null,
      sipReason: this.final?.reason ?? null,
      by,
      cause,
      answered: this.history.some((p) => p.type === 'answered'),
    };
    this.emit(end);
    this.resolveEnded(end);
    // Linger to re-ACK retransmitted 2xx and answer retransmitted BYEs, then forget the call.
    setTimeout(() => this.ctx.release(this.callId), this.ctx.timers.timerDMs).unref();
  }

  private later(ms: number, run: () => void): void {
    this.timers.push(setTimeout(run, ms));
  }

  private emit(progress: CallProgress): void {
    this.history.push(progress);
    for (const listener of [...this.listeners]) listener(progress);
  }
}

/** The SDP body of a message, or null (none, or not SDP). */
export function sdpOf(message: SipRequest | SipResponse): string | null {
  const type = header(message, 'content-type')?.toLowerCase() ?? 'application/sdp';
  return type.startsWith('application/sdp') && message.body.trim().length > 0 ? message.body : null;
}
