import type { LegContext } from './context';
import type { Dialog } from './dialog';
import { parseCSeq } from './fields';
import { header, type SipRequest } from './message';
import { ALLOWED_METHODS, responseTo } from './requests';
import type { Peer } from './transport';

// Answering what the far end sends inside a call: BYE ends it, a re-INVITE gets 200 with our
// current SDP (retransmitted on UDP until its ACK, timer G), OPTIONS and INFO get 200.

export type InDialogAction = { kind: 'bye' } | { kind: 'media'; remoteSdp: string } | { kind: 'none' };

export class InDialogServer {
  private pendingAck: { seq: number; timer: NodeJS.Timeout } | null = null;

  constructor(
    private readonly ctx: LegContext,
    private readonly localSdp: string,
    private readonly contact: string,
  ) {}

  receive(request: SipRequest, from: Peer, dialog: Dialog | null): InDialogAction {
    if (request.method === 'ACK') {
      if (this.pendingAck?.seq === parseCSeq(header(request, 'cseq'))?.seq) this.stop();
      return { kind: 'none' };
    }
    if (dialog && !dialog.matches(request)) {
      this.ctx.respond(request, responseTo(request, 481, 'Call/Transaction Does Not Exist'), from);
      return { kind: 'none' };
    }
    switch (request.method) {
      case 'BYE':
        this.ctx.respond(request, responseTo(request, 200, 'OK'), from);
        this.stop();
        return { kind: 'bye' };
      case 'INVITE':
        return this.reInvite(request, from, dialog);
      case 'OPTIONS':
      case 'INFO':
        this.ctx.respond(request, responseTo(request, 200, 'OK', { headers: this.allow() }), from);
        return { kind: 'none' };
      case 'CANCEL':
        this.ctx.respond(request, responseTo(request, 481, 'Call/Transaction Does Not Exist'), from);
        return { kind: 'none' };
      default:
        this.ctx.respond(
          request,
          responseTo(request, 501, 'Not Implemented', { headers: this.allow() }),
          from,
        );
        return { kind: 'none' };
    }
  }

  stop(): void {
    if (this.pendingAck) clearTimeout(this.pendingAck.timer);
    this.pendingAck = null;
  }

  private reInvite(request: SipRequest, from: Peer, dialog: Dialog | null): InDialogAction {
    if (!dialog || this.pendingAck) {
      // Before our ACK, or while the previous re-INVITE waits for its own (14.2).
      this.ctx.respond(request, responseTo(request, 491, 'Request Pending'), from);
      return { kind: 'none' };
    }
    const ok = responseTo(request, 200, 'OK', {
      headers: [
        { name: 'contact', value: this.contact },
        { name: 'content-type', value: 'application/sdp' },
        ...this.allow(),
      ],
      body: this.localSdp,
    });
    this.ctx.respond(request, ok, from);
    const seq = parseCSeq(header(request, 'cseq'))?.seq ?? 0;
    if (from.transport === 'udp') {
      const started = Date.now();
      const again = (interval: number): NodeJS.Timeout =>
        setTimeout(() => {
          if (Date.now() - started >= this.ctx.timers.transactionTimeoutMs) return this.stop();
          this.ctx.send(ok, from);
          this.pendingAck = { seq, timer: again(Math.min(interval * 2, this.ctx.timers.t2Ms)) };
        }, interval);
      this.pendingAck = { seq, timer: again(this.ctx.timers.t1Ms) };
    }
    const remoteSdp = request.body.trim().length > 0 ? request.body : null;
    return remoteSdp ? { kind: 'media', remoteSdp } : { kind: 'none' };
  }

  private allow(): { name: string; value: string }[] {
    return [
      { name: 'allow', value: ALLOWED_METHODS },
      { name: 'user-agent', value: this.ctx.userAgent },
    ];
  }
}
